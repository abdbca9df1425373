"""The learned ranker of hybrid search (graphmem_neo4j/conversation/ranker.py), leave one
conversation out.

    python benchmarks/ranker_cv.py --data ../shared/data/locomo_dev [--first MODEL_DIR]

The candidate lists the fusion receives, and the concept source's list, are collected once
per question as in fusion_cv.py (each conversation ingested with the model, hybrid search,
graph rules off). Every candidate of a question (the union of its BM25, dense and concept
lists) is described by the product's features
(ranker.features: no words, only the sources' scores and ranks, the neighbouring turns, the
speaker, time and what its session holds). A classifier learns P(evidence | features) on two
conversations and ranks the third's candidates. Which classifier is chosen inside each fold,
by leave-one-out over its two training conversations, never by the held-out one: the
logistic regressions the product ships (`--family linear`, the default) or also boosted
trees and the variants without the session features (`--family all`). Printed: the held-out
R@10 per fold and overall beside the fusion with its default constants and the fusion held
out (its constants chosen on the other conversations), per category, and the gains with 95%
paired-bootstrap intervals. `--against-turn-alone` also collects the lists with turn vectors
of the turn alone (not the turn before it) and prints what the shipped vectors gain held out.
`--write FILE` fits the chosen regression on every question and
writes the product's ranker file.
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from figures import Figures, add_json_out  # noqa: E402
from fusion_cv import (  # noqa: E402
    GRID_PREVIOUS,
    GRID_RAW,
    GRID_RELATIVE,
    Kept,
    collect,
    floats,
    grid,
    label,
    loco,
    run,
)
from locomo import CATEGORIES, load_questions, mean_interval, paired_interval, recall  # noqa: E402

from graphmem_neo4j.conversation.fusion import Candidate, fuse  # noqa: E402
from graphmem_neo4j.conversation.ranker import (  # noqa: E402
    ABSENT_RANK,
    FEATURES,
    SESSION_FEATURES,
    LinearRanker,
    model_key,
    pool_length,
)
from graphmem_neo4j.conversation.ranker import features as ranker_features  # noqa: E402
from graphmem_neo4j.conversation.readers import read_locomo, read_longmemeval  # noqa: E402
from graphmem_neo4j.conversation.text import asks_for_several  # noqa: E402


def session_width(second: bool) -> int:
    """How many last columns describe the candidate's session (and dense × BM25)."""
    return SESSION_FEATURES + (1 if second else 0)


def product_rows(kept: Kept, others: Sequence[Candidate]) -> tuple[list[Candidate], np.ndarray]:
    """What the product's ranker.features computes for the question's kept lists, with
    `others` joining the pool."""
    inputs = kept.inputs
    return ranker_features(
        inputs["dense"],
        inputs["lexical"],
        concept=kept.concept,
        several=asks_for_several(kept.question),
        speakers=inputs.get("speakers", ()),
        ranges=inputs.get("ranges", ()),
        others=others,
    )


def features(kept: Kept, second: bool = False) -> tuple[list[str], np.ndarray]:
    """The candidates of one question (ids) and one feature row each (ranker.features, what
    the product computes); with `second`, the second model's dense list joins the pool and
    seven columns describe it (its cosine, place, presence, rank, the neighbours' places and
    its session's best), before the session block."""
    other = kept.second if second else []
    pool, rows = product_rows(kept, [c for c, _ in other])
    ids = [c.id for c in pool]
    if not second:
        return ids, rows
    cosine = {c.id: s for c, s in other}
    place = {c.id: rank for rank, (c, _) in enumerate(other)}
    top, floor = max(cosine.values(), default=0.0), min(cosine.values(), default=0.0)
    relative = {i: (s - floor) / (top - floor) if top > floor else 0.0 for i, s in cosine.items()}
    at = {(c.session, c.seq): c.id for c in pool}
    session_best: dict[str, float] = defaultdict(float)
    for c in pool:
        session_best[c.session] = max(session_best[c.session], relative.get(c.id, 0.0))
    extra = [
        [
            cosine.get(c.id, floor),
            relative.get(c.id, 0.0),
            float(c.id in cosine),
            math.log1p(place.get(c.id, ABSENT_RANK)),
            relative.get(at.get((c.session, c.seq - 1), ""), 0.0),
            relative.get(at.get((c.session, c.seq + 1), ""), 0.0),
            session_best[c.session],
        ]
        for c in pool
    ]
    split = rows.shape[1] - SESSION_FEATURES
    return ids, np.hstack([rows[:, :split], np.asarray(extra).reshape(-1, 7), rows[:, split:]])


def candidates() -> dict[str, Callable[[], Any]]:
    """The classifiers a fold chooses among (deterministic: no early stopping, fixed seed)."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    def logistic(c: float) -> Callable[[], Any]:
        return lambda: make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=2000))

    def trees(depth: int, rounds: int) -> Callable[[], Any]:
        return lambda: HistGradientBoostingClassifier(
            max_depth=depth,
            max_iter=rounds,
            learning_rate=0.05,
            min_samples_leaf=100,
            early_stopping=False,
            random_state=0,
        )

    return {
        "logistic C=0.1": logistic(0.1),
        "logistic C=1": logistic(1.0),
        "trees depth 2, 100 rounds": trees(2, 100),
        "trees depth 3, 200 rounds": trees(3, 200),
    }


Table = list[tuple[list[str], np.ndarray]]


def held_out(
    kept: Sequence[Kept],
    table: Table,
    train: set[str],
    test: set[str],
    make: Any,
    drop: int = 0,
    weight: Callable[[Kept], float] | None = None,
) -> dict[int, float]:
    """R@10 of each `test` question, ranked by a classifier fitted on the `train` spaces
    without the last `drop` feature columns (each question's rows weighted by `weight`, a
    logistic pipeline's); the test rows are held within the range the training rows span, as
    the product's ranker holds them."""
    columns = slice(0, -drop) if drop else slice(None)
    x, y, w = [], [], []
    for k, (ids, rows) in zip(kept, table, strict=True):
        if k.space in train:
            evidence = set(k.evidence)
            x.append(rows[:, columns])
            y.extend(int(i in evidence) for i in ids)
            w.extend([weight(k) if weight else 1.0] * len(ids))
    train_rows = np.vstack(x)
    low, high = train_rows.min(axis=0), train_rows.max(axis=0)
    model = make()
    if weight is None:
        model.fit(train_rows, np.asarray(y))
    else:
        model.fit(
            train_rows, np.asarray(y), logisticregression__sample_weight=np.asarray(w) / np.mean(w)
        )
    out = {}
    for n, (k, (ids, rows)) in enumerate(zip(kept, table, strict=True)):
        if k.space in test:
            p = model.predict_proba(np.clip(rows[:, columns], low, high))[:, 1]
            order = [ids[j] for j in np.argsort(-p, kind="stable")]
            out[n] = recall(order, k.evidence, 10)
    return out


def fusion_held_out(kept: Sequence[Kept], spaces: Sequence[str]) -> list[float]:
    """Per question, the fusion's R@10 with its constants (dense weight, raw or relative,
    previous-turn share; fusion_cv.py's grid) chosen without the question's conversation."""
    systems = grid("default", [0.0], floats(GRID_PREVIOUS), floats(GRID_RAW), floats(GRID_RELATIVE))
    scores = {label(s): [recall(run(k, s), k.evidence, 10) for k in kept] for s in systems}
    return loco(scores, kept, spaces)[0]


System = tuple[str, bool]


def choose(
    kept: Sequence[Kept],
    table: Table,
    spaces: Sequence[str],
    systems: dict[System, Any],
    second: bool,
) -> tuple[System, float]:
    """The system with the best mean R@10 over leave-one-out folds of `spaces`."""
    scores = {}
    for (name, session), make in systems.items():
        inner_scores: list[float] = []
        for test in spaces:
            train = {s for s in spaces if s != test}
            drop = 0 if session else session_width(second)
            inner_scores += held_out(kept, table, train, {test}, make, drop).values()
        scores[(name, session)] = statistics.fmean(inner_scores)
    chosen = max(scores, key=lambda key: scores[key])
    return chosen, scores[chosen]


def nested(
    kept: Sequence[Kept],
    table: Table,
    spaces: Sequence[str],
    systems: dict[System, Any],
    second: bool,
) -> tuple[list[float], dict[str, tuple[System, float]]]:
    """Each question's R@10 held out: its conversation's ranker chosen (`choose`) and fitted
    on the other conversations; and per conversation the system chosen, with its inner R@10."""
    learned = [0.0] * len(kept)
    choices = {}
    for space in spaces:
        inner = [s for s in spaces if s != space]
        chosen, inner_score = choose(kept, table, inner, systems, second)
        choices[space] = (chosen, inner_score)
        drop = 0 if chosen[1] else session_width(second)
        for n, r in held_out(kept, table, set(inner), {space}, systems[chosen], drop).items():
            learned[n] = r
    return learned, choices


def against_turn_alone(
    groups: Any,
    questions: Any,
    model: Any,
    spaces: Sequence[str],
    learned: Sequence[float],
    systems: dict[System, Any],
    cache: Path | None,
) -> tuple[float, float, float]:
    """The same held-out ranker over candidate lists collected with turn vectors of the turn
    alone (no previous turn): per conversation and overall, what the shipped vectors gain."""
    alone: list[Kept]
    if cache is not None and cache.exists():
        alone = pickle.loads(cache.read_bytes())
    else:
        alone = collect(groups, questions, model, model, context=False)
        if cache is not None:
            cache.write_bytes(pickle.dumps(alone))
    table = [features(k) for k in alone]
    base, _ = nested(alone, table, spaces, systems, False)
    for space in spaces:
        mine = [i for i, k in enumerate(alone) if k.space == space]
        fold_gain = statistics.fmean(learned[i] - base[i] for i in mine)
        print(
            f"{space}: turn vectors alone {statistics.fmean(base[i] for i in mine):.3f}, "
            f"with the previous turn {statistics.fmean(learned[i] for i in mine):.3f}, "
            f"gain {fold_gain:+.3f}"
        )
    gain = paired_interval(list(learned), base)
    print(
        f"all {len(alone)} questions: turn vectors alone {statistics.fmean(base):.3f}, gain of "
        f"the previous turn {gain[0]:+.3f} [{gain[1]:+.3f}, {gain[2]:+.3f}]"
    )
    return gain


def ablation(
    kept: Sequence[Kept],
    table: Table,
    spaces: Sequence[str],
    systems: dict[System, Any],
    learned: Sequence[float],
    figures: Figures,
) -> None:
    """What each feature adds held out: the nested ranker again without it, and the gain of
    having it per conversation and over all questions (and multi-hop ones) with 95%
    paired-bootstrap intervals; last, the concept list dropped whole."""
    multi_hop = [i for i, k in enumerate(kept) if CATEGORIES.get(k.category) == "multi-hop"]
    print(
        f"{'feature':<34} " + " ".join(f"{s:>8}" for s in spaces) + "   all, 95% interval"
        "          multi-hop"
    )
    no_concept = [replace(k, concept=[]) for k in kept]
    blocks = [
        (name, kept, [(ids, np.delete(rows, j, axis=1)) for ids, rows in table])
        for j, name in enumerate(FEATURES)
    ]
    # The concept list's features overlap one another: it is also dropped as a whole (its five
    # features, and its candidates from the pool).
    blocks.append(
        ("whole concept list and its turns", no_concept, [features(k) for k in no_concept])
    )
    for name, other, other_table in blocks:
        without, _ = nested(other, other_table, spaces, systems, False)
        folds = [
            statistics.fmean(learned[i] - without[i] for i, k in enumerate(kept) if k.space == s)
            for s in spaces
        ]
        gain = paired_interval(list(learned), without)
        hop = paired_interval([learned[i] for i in multi_hop], [without[i] for i in multi_hop])
        print(
            f"{name:<34} "
            + " ".join(f"{g:>+8.3f}" for g in folds)
            + f"   {gain[0]:+.3f} [{gain[1]:+.3f}, {gain[2]:+.3f}]"
            f"   {hop[0]:+.3f} [{hop[1]:+.3f}, {hop[2]:+.3f}]",
            flush=True,
        )
        figures.add(f"gain of {name}", gain[0])
        figures.add(f"gain of {name}, 95% interval low", gain[1])
        figures.add(f"gain of {name}, 95% interval high", gain[2])


def with_graph(kept: Kept) -> tuple[list[str], np.ndarray]:
    """The product's features plus the entity graph's list (search_graph: entity lookup and
    second hop, what the fusion's graph rule reads): its candidates join the pool, and three
    columns describe it (its score over the best, presence, rank), before the session block."""
    graph = kept.inputs.get("graph", [])
    pool, rows = product_rows(kept, [c for c, _ in graph])
    best = max((s for _, s in graph), default=0.0)
    score = {c.id: s / best if best > 0 else 0.0 for c, s in graph}
    place = {c.id: rank for rank, (c, _) in enumerate(graph)}
    extra = [
        [score.get(c.id, 0.0), float(c.id in score), math.log1p(place.get(c.id, ABSENT_RANK))]
        for c in pool
    ]
    split = rows.shape[1] - SESSION_FEATURES
    block = np.asarray(extra).reshape(-1, 3)
    return [c.id for c in pool], np.hstack([rows[:, :split], block, rows[:, split:]])


def graph_gain(
    kept: Sequence[Kept],
    spaces: Sequence[str],
    systems: dict[System, Any],
    learned: Sequence[float],
    figures: Figures,
) -> None:
    """The nested ranker with the entity graph's list as three more features, against the
    product's features: held-out R@10 per conversation and the gain with its interval."""
    graphed, _ = nested(kept, [with_graph(k) for k in kept], spaces, systems, False)
    for space in spaces:
        mine = [i for i, k in enumerate(kept) if k.space == space]
        with_it = statistics.fmean(graphed[i] for i in mine)
        without = statistics.fmean(learned[i] for i in mine)
        print(f"{space}: with the entity graph's list {with_it:.3f}, without {without:.3f}")
    gain = paired_interval(graphed, list(learned))
    hop = [i for i, k in enumerate(kept) if CATEGORIES.get(k.category) == "multi-hop"]
    print(
        f"all {len(kept)} questions: with the entity graph's list {statistics.fmean(graphed):.3f}, "
        f"gain {gain[0]:+.3f} [{gain[1]:+.3f}, {gain[2]:+.3f}]; multi-hop "
        f"{statistics.fmean(graphed[i] for i in hop):.3f} against "
        f"{statistics.fmean(learned[i] for i in hop):.3f}"
    )
    figures.add(
        "learned ranker with the entity graph's list R@10, held out", statistics.fmean(graphed)
    )
    figures.add("gain of the entity graph's list", gain[0])


LONGMEMEVAL_TYPES = {
    11: "single-session-user",
    12: "single-session-assistant",
    13: "single-session-preference",
    14: "temporal-reasoning",
    15: "knowledge-update",
    16: "multi-session",
}
LONGMEMEVAL_FOLDS = 3


def collect_longmemeval(path: Path, model: Any) -> list[Kept]:
    """The candidate lists of every LongMemEval question with evidence turns, all haystacks in
    one space (longmemeval.py --pooled); each question's category is its type's code above."""
    import tempfile

    from longmemeval import POOL, asked_in

    from graphmem_neo4j.embedder import HashEmbedder

    records = json.loads(path.read_text(encoding="utf-8"))
    asked = asked_in(records)
    codes = {name: code for code, name in LONGMEMEVAL_TYPES.items()}
    questions = [
        {"question": q["question"], "category": codes[q["type"]], "evidence": q["turns"]}
        for q in asked.values()
        if q["turns"]
    ]
    with tempfile.TemporaryDirectory(prefix="graphmem-ranker-cv-") as home:
        chosen = Path(home) / "instances.json"
        kept_records = [r for r in records if str(r["question_id"]) in asked]
        chosen.write_text(json.dumps(kept_records), encoding="utf-8")
        groups = read_longmemeval(chosen, space=POOL)
    # the second model's list is not read here: a cheap one stands in for it
    return collect(groups, {POOL: questions}, model, HashEmbedder(16))


def cross_set(locomo: Sequence[Kept], longmemeval: Sequence[Kept], figures: Figures) -> None:
    """The learned ranker across the two development sets (logistic, C = 0.1, what both
    models' shipped rankers chose): LongMemEval's questions ranked by a ranker fitted on all
    of LoCoMo dev (held out by construction, as the shipped one is), beside the fusion, and
    rankers that also learn from LongMemEval (its questions in LONGMEMEVAL_FOLDS folds), each
    set held out: LongMemEval alone, and both sets with each set weighted alike."""
    folded = [replace(k, space=f"lme-{i % LONGMEMEVAL_FOLDS}") for i, k in enumerate(longmemeval)]
    kept = [*locomo, *folded]
    table = [features(k) for k in kept]
    make = candidates()["logistic C=0.1"]
    conversations = sorted({k.space for k in locomo})
    folds = sorted({k.space for k in folded})
    on_locomo = [i for i, k in enumerate(kept) if k.space in conversations]
    on_lme = [i for i, k in enumerate(kept) if k.space in folds]
    rows = {
        s: sum(len(ids) for k, (ids, _) in zip(kept, table, strict=True) if k.space == s)
        for s in [*conversations, *folds]
    }

    def held(
        train_for: Callable[[str], list[str]], tests: list[str], alike: bool = False
    ) -> dict[int, float]:
        """Each test space's questions ranked by a ranker fitted on train_for(space); with
        `alike`, each set's training rows weigh the same in all."""
        out: dict[int, float] = {}
        for test in tests:
            train = train_for(test)
            share = {
                s: 1 / sum(rows[t] for t in train if (t in conversations) == (s in conversations))
                for s in train
            }
            out.update(
                held_out(
                    kept,
                    table,
                    set(train),
                    {test},
                    make,
                    weight=(lambda k, share=share: share[k.space]) if alike else None,
                )
            )
        return out

    fusion = [
        recall([h.turn_id for h in fuse(**{**k.inputs, "k": 10})], k.evidence, 10) for k in kept
    ]
    locomo_ranker = (
        held(lambda c: [x for x in conversations if x != c], conversations),
        held(lambda f: conversations, folds),
    )
    lme_ranker = (
        held(lambda c: folds, conversations),
        held(lambda f: [x for x in folds if x != f], folds),
    )
    length = [pool_length(rows) for _, rows in table]

    # Per held-out space, the pool lengths the two rankers fitted without it record.
    centres = {
        held_out_space: [
            statistics.median(
                length[j]
                for j, k in enumerate(kept)
                if k.space in side and k.space != held_out_space
            )
            for side in (conversations, folds)
        ]
        for held_out_space in [*conversations, *folds]
    }

    def near_locomo(i: int) -> bool:
        """Whether question i goes to the LoCoMo ranker: of the two fitted without its own
        space, the one whose pool length is nearer its pool's, as Rankers.for_pool picks."""
        centre = centres[kept[i].space]
        return abs(length[i] - centre[0]) <= abs(length[i] - centre[1])

    def by_kind(i: int) -> float:
        side = 0 if kept[i].space in conversations else 1
        return (locomo_ranker if near_locomo(i) else lme_ranker)[side][i]

    systems = {
        "LoCoMo only": locomo_ranker,
        "LongMemEval only": lme_ranker,
        "both, each set weighted alike": (
            held(lambda c: [x for x in conversations if x != c] + folds, conversations, True),
            held(lambda f: conversations + [x for x in folds if x != f], folds, True),
        ),
        "each, chosen by pool length": (
            {i: by_kind(i) for i in on_locomo},
            {i: by_kind(i) for i in on_lme},
        ),
    }
    routed = sum(near_locomo(i) == (kept[i].space in conversations) for i in range(len(kept)))
    base_locomo, base_lme = systems["LoCoMo only"]
    print(
        f"\nacross the development sets ({len(on_locomo)} LoCoMo dev questions, "
        f"{len(on_lme)} LongMemEval questions over one pool; R@10 of the evidence turns):"
    )
    for name, (locomo_r, lme_r) in systems.items():
        for dataset, scores, base, idx in (
            ("LoCoMo dev", locomo_r, base_locomo, on_locomo),
            ("LongMemEval", lme_r, base_lme, on_lme),
        ):
            if not scores:
                continue
            values = [scores[i] for i in idx]
            mean, low, high = mean_interval(values)
            line = f"  trained on {name:<30} {dataset:<12} {mean:.3f} [{low:.3f}, {high:.3f}]"
            if scores is not base:
                gain = paired_interval(values, [base[i] for i in idx])
                line += f"  against LoCoMo only {gain[0]:+.3f} [{gain[1]:+.3f}, {gain[2]:+.3f}]"
            print(line)
            figures.add(f"trained on {name}: {dataset} R@10", mean)
            figures.add(f"trained on {name}: {dataset} R@10, 95% interval low", low)
            figures.add(f"trained on {name}: {dataset} R@10, 95% interval high", high)
    print(
        f"  chosen by pool length: {routed} of {len(kept)} questions go to their own set's ranker"
    )
    figures.add("questions routed to their own set's ranker", routed)
    kind_lme = systems["each, chosen by pool length"][1]
    fusion_lme = [fusion[i] for i in on_lme]
    gain = paired_interval([base_lme[i] for i in on_lme], fusion_lme)
    print(
        f"  LongMemEval, the fusion (default constants): {statistics.fmean(fusion_lme):.3f}; "
        f"the LoCoMo-trained ranker gains {gain[0]:+.3f} [{gain[1]:+.3f}, {gain[2]:+.3f}]"
    )
    figures.add("LongMemEval: fusion R@10", statistics.fmean(fusion_lme))
    figures.add("LongMemEval: LoCoMo ranker over the fusion, 95% interval low", gain[1])
    figures.add("LongMemEval: LoCoMo ranker over the fusion, 95% interval high", gain[2])
    for code, name in LONGMEMEVAL_TYPES.items():
        mine = [i for i in on_lme if kept[i].category == code]
        if mine:
            print(
                f"    {name:<26} LoCoMo-trained {statistics.fmean(base_lme[i] for i in mine):.3f}, "
                f"by pool length {statistics.fmean(kind_lme[i] for i in mine):.3f}, "
                f"fusion {statistics.fmean(fusion[i] for i in mine):.3f} (n={len(mine)})"
            )
            figures.add(
                f"LongMemEval: ranker by pool length R@10, {name}",
                statistics.fmean(kind_lme[i] for i in mine),
            )
            figures.add(
                f"LongMemEval: LoCoMo ranker R@10, {name}",
                statistics.fmean(base_lme[i] for i in mine),
            )


def write_longmemeval(
    lme: Sequence[Kept], systems: dict[System, Any], model: str, path: Path
) -> None:
    """The ranker for user-assistant conversations: the linear family's choice by
    LONGMEMEVAL_FOLDS question folds, fitted on every LongMemEval question, written to `path`."""
    folded = [replace(k, space=f"lme-{i % LONGMEMEVAL_FOLDS}") for i, k in enumerate(lme)]
    table = [features(k) for k in folded]
    folds = sorted({k.space for k in folded})
    chosen, score = choose(folded, table, folds, systems, False)
    ranker = fitted_ranker(
        folded,
        table,
        systems[chosen],
        model,
        f"{len(folded)} LongMemEval oracle questions over one pool; {chosen[0]} chosen by "
        f"{LONGMEMEVAL_FOLDS} question folds (R@10 {score:.3f})",
    )
    path.write_text(json.dumps(ranker.to_json(), indent=1) + "\n", encoding="utf-8")
    print(f"{path}: {chosen[0]}, fitted on all {len(folded)} LongMemEval questions")


def fitted_ranker(
    kept: Sequence[Kept], table: Table, make: Any, model: str, fitted_on: str
) -> LinearRanker:
    """The logistic regression `make` builds, fitted on every question, as the product's
    ranker (its scaler's mean and scale, its weights, each feature's range, and the median
    pool length of its questions, which says what kind of conversation it was fitted on)."""
    x = np.vstack([rows for _, rows in table])
    y = np.asarray(
        [int(i in set(k.evidence)) for k, (ids, _) in zip(kept, table, strict=True) for i in ids]
    )
    pipeline = make()
    pipeline.fit(x, y)
    scaler, logistic = pipeline[0], pipeline[-1]
    return LinearRanker(
        model=model,
        features=FEATURES,
        mean=tuple(float(v) for v in scaler.mean_),
        scale=tuple(float(v) for v in scaler.scale_),
        coef=tuple(float(v) for v in logistic.coef_[0]),
        intercept=float(logistic.intercept_[0]),
        fitted_on=fitted_on,
        low=tuple(float(v) for v in x.min(axis=0)),
        high=tuple(float(v) for v in x.max(axis=0)),
        pool_length=float(np.median([pool_length(rows) for _, rows in table])),
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/locomo_dev")
    parser.add_argument(
        "--cache", type=Path, help="keep the collected candidate lists in this file"
    )
    parser.add_argument(
        "--first",
        type=Path,
        help="the model directory that ingests and fills the dense list (default: the "
        "default model)",
    )
    parser.add_argument(
        "--second",
        type=Path,
        help="a second model's directory (e.g. ~/.graphmem/models/bge-small-en-v1.5): its dense "
        "list over the same turns joins the candidates and the features",
    )
    parser.add_argument(
        "--family",
        choices=["all", "linear"],
        default="linear",
        help="the classifiers a fold chooses among: all (logistic and trees, with and without "
        "the session features) or linear (the logistic regressions with every feature: what "
        "the product ships)",
    )
    parser.add_argument(
        "--against-turn-alone",
        action="store_true",
        help="also collect the lists with turn vectors of the turn alone (ingestion without "
        "the previous turn) and print the held-out ranker's gain from the previous turn",
    )
    parser.add_argument(
        "--ablation",
        action="store_true",
        help="also fit the nested ranker once without each feature and print what each adds "
        "held out, per conversation and overall with 95%% paired-bootstrap intervals (linear "
        "family)",
    )
    parser.add_argument(
        "--graph",
        action="store_true",
        help="also fit the nested ranker with the entity graph's list as three more features "
        "(its candidates in the pool) and print what it gains held out (linear family)",
    )
    parser.add_argument(
        "--write",
        type=Path,
        help="fit the linear family's choice (by leave-one-conversation-out over every "
        "conversation) on all questions and write it as the product's ranker file "
        "(graphmem_neo4j/conversation/rankers/<model>.json)",
    )
    parser.add_argument(
        "--longmemeval",
        type=Path,
        help="LongMemEval's oracle file (tools/fetch_longmemeval.py): also collect its "
        "questions over one pool and print the ranker across the two development sets",
    )
    parser.add_argument(
        "--longmemeval-cache",
        type=Path,
        help="keep LongMemEval's collected candidate lists in this file",
    )
    parser.add_argument(
        "--write-longmemeval",
        type=Path,
        help="with --longmemeval: fit the linear family's choice (by its three question folds) "
        "on every LongMemEval question and write it as the model's ranker for user-assistant "
        "conversations (graphmem_neo4j/conversation/rankers/<model>+longmemeval.json)",
    )
    add_json_out(parser)
    args = parser.parse_args(argv)
    if args.write_longmemeval and not args.longmemeval:
        parser.error("--write-longmemeval needs --longmemeval FILE")
    if (args.write or args.ablation or args.graph) and (args.second or args.family != "linear"):
        parser.error(
            "--write, --ablation and --graph need the linear family and no --second (what the "
            "product runs)"
        )
    name = "ranker_cv_second" if args.second else "ranker_cv"
    if args.first:
        name += f"_{model_key(str(args.first))}"
    if args.longmemeval:
        name += "_longmemeval"
    figures = Figures(name)

    from graphmem_neo4j.embedder import NumpyEmbedder

    groups = read_locomo(args.data / "locomo_dev.json")
    model = NumpyEmbedder(str(args.first)) if args.first else NumpyEmbedder()
    kept: list[Kept]
    if args.cache is not None and args.cache.exists():
        kept = pickle.loads(args.cache.read_bytes())
    else:
        other = NumpyEmbedder(str(args.second)) if args.second else model
        kept = collect(groups, load_questions(args.data), model, other)
        if args.cache is not None:
            args.cache.write_bytes(pickle.dumps(kept))
    spaces = [s for s, _ in groups]
    second = args.second is not None
    table = [features(k, second) for k in kept]
    fusion = [
        recall([h.turn_id for h in fuse(**{**k.inputs, "k": 10})], k.evidence, 10) for k in kept
    ]
    fusion_held = fusion_held_out(kept, spaces)

    systems: dict[System, Any] = {
        (name, session): make
        for name, make in candidates().items()
        for session in (False, True)
        if args.family == "all" or (name.startswith("logistic") and session)
    }
    learned, choices = nested(kept, table, spaces, systems, second)
    for space in spaces:
        chosen, inner_score = choices[space]
        text = f"{chosen[0]}{', session features' if chosen[1] else ''}"
        mine = [i for i, k in enumerate(kept) if k.space == space]
        ranked = statistics.fmean(learned[i] for i in mine)
        base = statistics.fmean(fusion[i] for i in mine)
        held = statistics.fmean(fusion_held[i] for i in mine)
        gain = paired_interval([learned[i] for i in mine], [fusion[i] for i in mine])
        gain_held = paired_interval([learned[i] for i in mine], [fusion_held[i] for i in mine])
        print(
            f"{space}: chose {text} (inner R@10 {inner_score:.3f}); held-out R@10 "
            f"{ranked:.3f}; the default fusion's {base:.3f}, gain {gain[0]:+.3f} "
            f"[{gain[1]:+.3f}, {gain[2]:+.3f}]; the fusion held out {held:.3f}, gain "
            f"{gain_held[0]:+.3f} [{gain_held[1]:+.3f}, {gain_held[2]:+.3f}]",
            flush=True,
        )
        figures.add(f"{space}: learned ranker R@10", ranked)
        figures.add(f"{space}: fusion R@10", base)
        figures.add(f"{space}: fusion held out R@10", held)
    mean, low, high = mean_interval(learned)
    gain = paired_interval(learned, fusion)
    gain_held = paired_interval(learned, fusion_held)
    print(
        f"all {len(kept)} questions: learned ranker R@10 {mean:.3f} [{low:.3f}, {high:.3f}]; "
        f"default fusion {statistics.fmean(fusion):.3f}, gain {gain[0]:+.3f} "
        f"[{gain[1]:+.3f}, {gain[2]:+.3f}]; fusion held out {statistics.fmean(fusion_held):.3f}, "
        f"gain {gain_held[0]:+.3f} [{gain_held[1]:+.3f}, {gain_held[2]:+.3f}]"
    )
    figures.add("learned ranker R@10, held out", mean)
    figures.add("fusion R@10 on the same lists", statistics.fmean(fusion))
    figures.add("fusion R@10, held out", statistics.fmean(fusion_held))
    figures.add("gain over the fusion held out, 95% interval low", gain_held[1])
    figures.add("gain over the fusion held out, 95% interval high", gain_held[2])
    for category, cat_name in CATEGORIES.items():
        mine = [i for i, k in enumerate(kept) if k.category == category]
        if mine:
            ranked = statistics.fmean(learned[i] for i in mine)
            base = statistics.fmean(fusion[i] for i in mine)
            held = statistics.fmean(fusion_held[i] for i in mine)
            print(
                f"  {cat_name:<12} {ranked:.3f} against {base:.3f} (held out {held:.3f}, "
                f"n={len(mine)})"
            )
            figures.add(f"learned ranker R@10, {cat_name}", ranked)
            figures.add(f"fusion R@10, {cat_name}", base)
    if args.against_turn_alone:
        alone_cache = args.cache.with_suffix(".alone.pkl") if args.cache else None
        qs = load_questions(args.data)
        gain = against_turn_alone(groups, qs, model, spaces, learned, systems, alone_cache)
        figures.add("gain of the previous turn in the turn vector", gain[0])
        figures.add("gain of the previous turn, 95% interval low", gain[1])
        figures.add("gain of the previous turn, 95% interval high", gain[2])
    if args.ablation:
        ablation(kept, table, spaces, systems, learned, figures)
    if args.graph:
        graph_gain(kept, spaces, systems, learned, figures)
    if args.longmemeval is not None:
        lme: list[Kept]
        if args.longmemeval_cache is not None and args.longmemeval_cache.exists():
            lme = pickle.loads(args.longmemeval_cache.read_bytes())
        else:
            lme = collect_longmemeval(args.longmemeval, model)
            if args.longmemeval_cache is not None:
                args.longmemeval_cache.write_bytes(pickle.dumps(lme))
        cross_set(kept, lme, figures)
        if args.write_longmemeval:
            write_longmemeval(lme, systems, model_key(model.name), args.write_longmemeval)
    if args.write:
        chosen, score = choose(kept, table, spaces, systems, second)
        ranker = fitted_ranker(
            kept,
            table,
            systems[chosen],
            model_key(model.name),
            f"{len(kept)} LoCoMo dev questions ({', '.join(spaces)}); {chosen[0]} chosen by "
            f"leave-one-conversation-out (R@10 {score:.3f})",
        )
        args.write.write_text(json.dumps(ranker.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"{args.write}: {chosen[0]}, fitted on all {len(kept)} questions")
    figures.write(args.json_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
