"""A learned ranker over hybrid search's candidates: the alternative to the hand-set fusion.

Each candidate turn of a question (the union of its dense, BM25 and concept lists) is
described by features that hold no words: the sources' scores and ranks, the scores of the
turns before and after it in its session, whether its speaker is named in the question, its
length, whether it asks a question, whether it falls in a time range the question names, and what
its session holds among the candidates. A logistic regression, fitted by
`benchmarks/ranker_cv.py --write` on LoCoMo dev with its regularisation chosen by
leave-one-conversation-out, gives P(evidence | features); the turns are ranked by it. The
weights are per embedding model and ship as JSON beside this module (rankers/<model>.json),
with the range each feature spanned in training: a value outside it is held at its edge, so
a conversation unlike the training data (replies ten times longer, say) cannot push a linear
weight past what was learned. A model can ship one ranker per kind of conversation
(rankers/<model>+<kind>.json beside it: LongMemEval's user-assistant chat); each records the
typical turn length of the candidate pools it was fitted on, and a question is ranked by the
ranker whose pools its own pool resembles most. docs/conversation.md, "A learned ranker".
"""

from __future__ import annotations

import functools
import json
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError, InputError
from .fusion import Candidate
from .models import RANKINGS, ConversationConfig, SearchHit, weights_for_model
from .text import TimeRange, name_key

Rows = Sequence[tuple[Candidate, float]]

ABSENT_RANK = 150
"""The rank given to a candidate missing from a list (the lists hold 100)."""

FEATURES = (
    "dense relative",
    "in dense list",
    "log dense rank",
    "bm25 relative",
    "in bm25 list",
    "log bm25 rank",
    "concept relative",
    "in concept list",
    "log concept rank",
    "concept relative, asks for several",
    "in concept list, asks for several",
    "previous turn dense relative",
    "previous turn bm25 relative",
    "next turn dense relative",
    "speaker named",
    "log length",
    "asks a question",
    "in a named time range",
    "session best dense relative",
    "session best bm25 relative",
    "log session candidates",
    "dense relative x bm25 relative",
)
SESSION_FEATURES = 4
"""The last columns: what the candidate's session holds and the dense × BM25 product."""

RANKERS = Path(__file__).with_name("rankers")
FORMAT = "graphmem-ranker/2"


def features(
    dense: Rows,
    lexical: Rows,
    *,
    concept: Rows = (),
    several: bool = False,
    speakers: Iterable[str] = (),
    ranges: Sequence[TimeRange] = (),
    others: Iterable[Candidate] = (),
) -> tuple[list[Candidate], np.ndarray]:
    """The candidates of one question and one row of FEATURES each. `concept` is the concept
    source's list (turns naming entities near the question's words; empty when it did not
    run); `several`, whether the question asks for several facts (text.asks_for_several),
    gives the concept list a second weight for such questions. `others` join the pool (and
    their sessions' counts) without a score of their own."""
    top = max((s for _, s in dense), default=0.0)
    floor = min((s for _, s in dense), default=0.0)
    best_lexical = max((s for _, s in lexical), default=0.0)
    pool: dict[str, Candidate] = {}
    cosine: dict[str, float] = {}
    dense_rank: dict[str, int] = {}
    lex: dict[str, float] = {}
    lex_rank: dict[str, int] = {}
    for rank, (c, s) in enumerate(dense):
        pool[c.id], cosine[c.id], dense_rank[c.id] = c, s, rank
    for rank, (c, s) in enumerate(lexical):
        pool[c.id], lex_rank[c.id] = c, rank
        lex[c.id] = s / best_lexical if best_lexical > 0 else 0.0
    best_concept = max((s for _, s in concept), default=0.0)
    con: dict[str, float] = {}
    con_rank: dict[str, int] = {}
    for rank, (c, s) in enumerate(concept):
        pool.setdefault(c.id, c)
        con_rank[c.id] = rank
        con[c.id] = s / best_concept if best_concept > 0 else 0.0
    for c in others:
        pool.setdefault(c.id, c)
    relative = {i: (s - floor) / (top - floor) if top > floor else 0.0 for i, s in cosine.items()}
    at = {(c.session, c.seq): c.id for c in pool.values()}
    named = {name_key(s) for s in speakers}
    session_dense: dict[str, float] = defaultdict(float)
    session_lexical: dict[str, float] = defaultdict(float)
    session_count: dict[str, int] = defaultdict(int)
    for i, c in pool.items():
        session_dense[c.session] = max(session_dense[c.session], relative.get(i, 0.0))
        session_lexical[c.session] = max(session_lexical[c.session], lex.get(i, 0.0))
        session_count[c.session] += 1
    rows = []
    for i, c in pool.items():
        before = at.get((c.session, c.seq - 1), "")
        after = at.get((c.session, c.seq + 1), "")
        rows.append(
            [
                relative.get(i, 0.0),
                float(i in cosine),
                math.log1p(dense_rank.get(i, ABSENT_RANK)),
                lex.get(i, 0.0),
                float(i in lex),
                math.log1p(lex_rank.get(i, ABSENT_RANK)),
                con.get(i, 0.0),
                float(i in con),
                math.log1p(con_rank.get(i, ABSENT_RANK)),
                con.get(i, 0.0) * several,
                float(i in con) * several,
                relative.get(before, 0.0),
                lex.get(before, 0.0),
                relative.get(after, 0.0),
                float(bool(named) and name_key(c.speaker) in named),
                math.log1p(len(c.text)),
                float(c.text.rstrip().endswith("?")),
                float(c.time is not None and any(r.contains(c.time) for r in ranges)),
                session_dense[c.session],
                session_lexical[c.session],
                math.log1p(session_count[c.session]),
                relative.get(i, 0.0) * lex.get(i, 0.0),
            ]
        )
    matrix = np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURES))
    return list(pool.values()), matrix


@dataclass(frozen=True)
class LinearRanker:
    """A logistic regression over standardised features: logit = ((clip(x) − mean) / scale) ·
    coef + intercept, where clip holds each feature within [low, high], the range it spanned
    in training."""

    model: str
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    low: tuple[float, ...]
    high: tuple[float, ...]
    fitted_on: str = ""
    pool_length: float | None = None
    """The kind of conversation it was fitted on: over its training questions, the median of
    each candidate pool's median "log length" (pool_length())."""
    name: str = field(default="", compare=False)
    """The file it was read from, without ".json" (what a search reports as `ranked_by`)."""

    def __post_init__(self) -> None:
        n = len(self.features)
        if not (
            len(self.mean)
            == len(self.scale)
            == len(self.coef)
            == len(self.low)
            == len(self.high)
            == n
        ):
            raise ConfigError(f"ranker for {self.model!r}: {n} features but other lengths differ")
        if not all(math.isfinite(v) and v > 0 for v in self.scale):
            raise ConfigError(f"ranker for {self.model!r}: every scale must be positive")
        if not all(lo <= hi for lo, hi in zip(self.low, self.high, strict=True)):
            raise ConfigError(f"ranker for {self.model!r}: each feature needs a low <= high")

    def logits(self, rows: np.ndarray) -> np.ndarray:
        rows = np.clip(rows, np.asarray(self.low), np.asarray(self.high))
        mean, scale = np.asarray(self.mean), np.asarray(self.scale)
        logits: np.ndarray = ((rows - mean) / scale) @ np.asarray(self.coef) + self.intercept
        return logits

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "model": self.model,
            "fitted_on": self.fitted_on,
            **({} if self.pool_length is None else {"pool_length": self.pool_length}),
            "intercept": self.intercept,
            "features": [
                {"name": f, "mean": m, "scale": s, "coef": c, "low": lo, "high": hi}
                for f, m, s, c, lo, hi in zip(
                    self.features,
                    self.mean,
                    self.scale,
                    self.coef,
                    self.low,
                    self.high,
                    strict=True,
                )
            ],
        }

    @staticmethod
    def from_json(data: Any, source: str) -> LinearRanker:
        try:
            if data["format"] != FORMAT:
                raise ConfigError(f"{source}: format {data['format']!r}, expected {FORMAT!r}")
            rows = data["features"]
            ranker = LinearRanker(
                model=str(data["model"]),
                features=tuple(str(r["name"]) for r in rows),
                mean=tuple(float(r["mean"]) for r in rows),
                scale=tuple(float(r["scale"]) for r in rows),
                coef=tuple(float(r["coef"]) for r in rows),
                intercept=float(data["intercept"]),
                fitted_on=str(data.get("fitted_on", "")),
                low=tuple(float(r["low"]) for r in rows),
                high=tuple(float(r["high"]) for r in rows),
                pool_length=None if data.get("pool_length") is None else float(data["pool_length"]),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigError(f"{source} is not a ranker file: {e!r}") from e
        if ranker.features != FEATURES:
            raise ConfigError(f"{source}: its features are not the ones this version computes")
        return ranker


def model_key(model: str) -> str:
    """A model's name as the ranker files are named: the last part of its path."""
    return model.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]


def pool_length(rows: np.ndarray) -> float:
    """What kind of conversation a question's candidates come from: the median of their
    "log length" (two-person chat turns sit near 4.9, an assistant's long answers near 6.3)."""
    return float(np.median(rows[:, FEATURES.index("log length")]))


@dataclass(frozen=True)
class Rankers:
    """An embedding model's rankers, one per kind of conversation it was fitted on. A
    question is ranked by the one whose training pools' length (LinearRanker.pool_length) is
    nearest its own pool's: with LoCoMo's and LongMemEval's rankers, every held-out question
    of either set goes to its own set's ranker (docs/conversation.md)."""

    members: tuple[LinearRanker, ...]

    def __post_init__(self) -> None:
        if not self.members:
            raise ConfigError("a ranker set needs at least one ranker")
        if len(self.members) > 1 and any(r.pool_length is None for r in self.members):
            raise ConfigError(
                f"rankers for {self.members[0].model!r}: with several, each must record its "
                "pool_length"
            )

    def for_pool(self, rows: np.ndarray) -> LinearRanker:
        if len(self.members) == 1:
            return self.members[0]
        length = pool_length(rows)
        return min(self.members, key=lambda r: abs(length - (r.pool_length or 0.0)))


def ranker_files(model: str) -> list[Path]:
    """A model's ranker files: rankers/<model>.json first, then rankers/<model>+<kind>.json."""
    key = model_key(model)
    main = RANKERS / f"{key}.json"
    return ([main] if main.is_file() else []) + sorted(RANKERS.glob(f"{key}+*.json"))


@functools.lru_cache(maxsize=8)
def ranker_for_model(model: str) -> Rankers | None:
    """The shipped rankers for an embedding model, or None when there are none (the fusion
    ranks then)."""
    paths = ranker_files(model)
    if not paths:
        return None
    loaded = (
        LinearRanker.from_json(json.loads(p.read_text(encoding="utf-8")), str(p)) for p in paths
    )
    return Rankers(tuple(replace(r, name=p.stem) for r, p in zip(loaded, paths, strict=True)))


def chosen_ranker(config: ConversationConfig, model: str) -> Rankers | None:
    """The learned ranker hybrid search uses under `config` with embedding model `model`, or
    None for the fusion (ConversationConfig.ranking)."""
    ranking = config.ranking
    if ranking not in RANKINGS:
        raise InputError(f"unknown ranking {ranking!r}: use {', '.join(RANKINGS)}")
    if ranking == "fusion":
        return None
    found = ranker_for_model(model)
    if ranking == "learned" and found is None:
        raise InputError(
            f"no learned ranker ships for embedding model {model!r}: use ranking 'auto' or "
            "'fusion'",
            field="ranking",
        )
    if ranking == "auto" and config.weights != weights_for_model(model):
        return None  # changed fusion weights ask for the fusion
    return found


def ranked(
    rankers: Rankers,
    dense: Rows,
    lexical: Rows,
    k: int,
    speakers: Iterable[str] = (),
    ranges: Sequence[TimeRange] = (),
    concept: Rows = (),
    several: bool = False,
) -> tuple[list[SearchHit], LinearRanker | None]:
    """The k candidates most likely to be evidence, and the ranker of `rankers` that ordered
    them (None when there were none). A hit's score is its place between the
    least and the most likely candidate of the question's pool on the log-odds scale (1 for
    the best), a ranking within the question as the fusion's scores are: recall weighs it by
    the layer's best relevance (recall/rank.py). The probabilities themselves are small
    (evidence is about 1 turn in 200) and fall steeply, so a list's tenth turn would weigh
    next to nothing beside its first."""
    pool, rows = features(
        dense, lexical, concept=concept, several=several, speakers=speakers, ranges=ranges
    )
    if not pool:
        return [], None
    ranker = rankers.for_pool(rows)
    logits = ranker.logits(rows)
    low, span = float(logits.min()), float(logits.max() - logits.min())
    in_dense = {c.id for c, _ in dense}
    in_lexical = {c.id for c, s in lexical if s > 0}
    in_concept = {c.id for c, _ in concept}
    order = sorted(range(len(pool)), key=lambda j: (-logits[j], pool[j].id))[:k]
    hits = []
    for j in order:
        c = pool[j]
        via = (
            ("fulltext",) * (c.id in in_lexical)
            + ("vector",) * (c.id in in_dense)
            + ("concept",) * (c.id in in_concept)
        )
        hits.append(
            SearchHit(
                turn_id=c.id,
                session=c.session,
                speaker=c.speaker,
                text=c.text,
                score=(float(logits[j]) - low) / span if span > 0 else 1.0,
                via=via,
                time=c.time,
                seq=c.seq,
            )
        )
    return hits, ranker
