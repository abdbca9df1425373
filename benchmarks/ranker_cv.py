"""A learned ranker over the hybrid search's candidates, leave one conversation out.

    python benchmarks/ranker_cv.py --data ../shared/data/locomo_dev --cache /tmp/kept.pkl

The candidate lists the fusion receives are collected once per question as in fusion_cv.py
(each conversation ingested with the default model, hybrid search, graph rules off). Every
candidate of a question (the union of its BM25 and dense lists) is described by features that
hold no words: the sources' scores and ranks, the scores of the turns before and after it in
its session, whether its speaker is named in the question, its length, whether it asks a
question, whether it falls in a time range the question names or names a time itself, and
what its session holds among the candidates (the best dense and BM25 scores, how many). A
classifier learns P(evidence | features) on two conversations and ranks the third's
candidates. Which classifier (logistic regression or gradient-boosted trees, two sizes each,
with or without the session features) is chosen inside each fold, by leave-one-out over its
two training conversations, never by the held-out one. Printed: the held-out R@10 per fold and
overall beside the production fusion on the same lists, per category, and the gain with a
95% paired-bootstrap interval.
"""

from __future__ import annotations

import argparse
import math
import pickle
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from figures import Figures, add_json_out  # noqa: E402
from fusion_cv import Kept, collect  # noqa: E402
from locomo import CATEGORIES, load_questions, mean_interval, paired_interval, recall  # noqa: E402

from graphmem_neo4j.conversation.fusion import fuse  # noqa: E402
from graphmem_neo4j.conversation.readers import read_locomo  # noqa: E402
from graphmem_neo4j.conversation.text import name_key  # noqa: E402

ABSENT_RANK = 150
"""The rank given to a candidate missing from a list (the lists hold 100)."""
SESSION_FEATURES = 4
"""The last columns of a feature row: what the candidate's session holds (its best dense and
BM25 scores, how many candidates) and the candidate's dense × BM25 score."""


def session_width(second: bool) -> int:
    """How many last columns describe the candidate's session (and dense × BM25)."""
    return SESSION_FEATURES + (1 if second else 0)


def features(kept: Kept, second: bool = False) -> tuple[list[str], np.ndarray]:
    """The candidates of one question (ids) and one feature row each; with `second`, also
    the second model's dense list (its candidates, scores and ranks, the neighbours' and the
    session's best)."""
    inputs = kept.inputs
    dense, lexical = inputs["dense"], inputs["lexical"]
    top = max((s for _, s in dense), default=0.0)
    floor = min((s for _, s in dense), default=0.0)
    best_lexical = max((s for _, s in lexical), default=0.0)
    pool: dict[str, Any] = {}
    cosine: dict[str, float] = {}
    dense_rank: dict[str, int] = {}
    lex: dict[str, float] = {}
    lex_rank: dict[str, int] = {}
    for rank, (c, s) in enumerate(dense):
        pool[c.id], cosine[c.id], dense_rank[c.id] = c, s, rank
    for rank, (c, s) in enumerate(lexical):
        pool[c.id], lex_rank[c.id] = c, rank
        lex[c.id] = s / best_lexical if best_lexical > 0 else 0.0
    other = kept.second if second else []
    other_cosine: dict[str, float] = {}
    other_rank: dict[str, int] = {}
    for rank, (c, s) in enumerate(other):
        pool[c.id], other_cosine[c.id], other_rank[c.id] = c, s, rank
    other_top = max(other_cosine.values(), default=0.0)
    other_floor = min(other_cosine.values(), default=0.0)
    other_relative = {
        i: (s - other_floor) / (other_top - other_floor) if other_top > other_floor else 0.0
        for i, s in other_cosine.items()
    }
    relative = {i: (s - floor) / (top - floor) if top > floor else 0.0 for i, s in cosine.items()}
    at = {(c.session, c.seq): c.id for c in pool.values()}
    speakers = {name_key(s) for s in inputs.get("speakers", ())}
    ranges = inputs.get("ranges", ())
    dated = set(inputs.get("dated", ()))
    session_dense: dict[str, float] = defaultdict(float)
    session_lexical: dict[str, float] = defaultdict(float)
    session_count: dict[str, int] = defaultdict(int)
    session_other: dict[str, float] = defaultdict(float)
    for i, c in pool.items():
        session_other[c.session] = max(session_other[c.session], other_relative.get(i, 0.0))
        session_dense[c.session] = max(session_dense[c.session], relative.get(i, 0.0))
        session_lexical[c.session] = max(session_lexical[c.session], lex.get(i, 0.0))
        session_count[c.session] += 1
    ids, rows = [], []
    for i, c in pool.items():
        before = at.get((c.session, c.seq - 1), "")
        after = at.get((c.session, c.seq + 1), "")
        extra = (
            [
                other_cosine.get(i, other_floor),
                other_relative.get(i, 0.0),
                float(i in other_cosine),
                math.log1p(other_rank.get(i, ABSENT_RANK)),
                other_relative.get(before, 0.0),
                other_relative.get(after, 0.0),
            ]
            if second
            else []
        )
        rows.append(
            [
                cosine.get(i, floor),
                relative.get(i, 0.0),
                float(i in cosine),
                math.log1p(dense_rank.get(i, ABSENT_RANK)),
                lex.get(i, 0.0),
                float(i in lex),
                math.log1p(lex_rank.get(i, ABSENT_RANK)),
                relative.get(before, 0.0),
                lex.get(before, 0.0),
                relative.get(after, 0.0),
                lex.get(after, 0.0),
                float(bool(speakers) and name_key(c.speaker) in speakers),
                float(bool(speakers)),
                math.log1p(len(c.text)),
                float(c.text.rstrip().endswith("?")),
                float(c.time is not None and any(r.contains(c.time) for r in ranges)),
                float(i in dated),
                *extra,
                *([session_other[c.session]] if second else []),
                session_dense[c.session],
                session_lexical[c.session],
                math.log1p(session_count[c.session]),
                relative.get(i, 0.0) * lex.get(i, 0.0),
            ]
        )
        ids.append(i)
    return ids, np.asarray(rows, dtype=np.float64)


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
) -> dict[int, float]:
    """R@10 of each `test` question, ranked by a classifier fitted on the `train` spaces
    without the last `drop` feature columns."""
    columns = slice(0, -drop) if drop else slice(None)
    x, y = [], []
    for k, (ids, rows) in zip(kept, table, strict=True):
        if k.space in train:
            evidence = set(k.evidence)
            x.append(rows[:, columns])
            y.extend(int(i in evidence) for i in ids)
    model = make()
    model.fit(np.vstack(x), np.asarray(y))
    out = {}
    for n, (k, (ids, rows)) in enumerate(zip(kept, table, strict=True)):
        if k.space in test:
            p = model.predict_proba(rows[:, columns])[:, 1]
            order = [ids[j] for j in np.argsort(-p, kind="stable")]
            out[n] = recall(order, k.evidence, 10)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/locomo_dev")
    parser.add_argument(
        "--cache", type=Path, help="keep the collected candidate lists in this file"
    )
    parser.add_argument(
        "--second",
        type=Path,
        help="a second model's directory (e.g. ~/.graphmem/models/bge-small-en-v1.5): its dense "
        "list over the same turns joins the candidates and the features",
    )
    add_json_out(parser)
    args = parser.parse_args(argv)
    figures = Figures("ranker_cv_second" if args.second else "ranker_cv")

    from graphmem_neo4j.embedder import NumpyEmbedder

    groups = read_locomo(args.data / "locomo_dev.json")
    kept: list[Kept]
    if args.cache is not None and args.cache.exists():
        kept = pickle.loads(args.cache.read_bytes())
    else:
        model = NumpyEmbedder()
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

    systems = {
        (name, session): make for name, make in candidates().items() for session in (False, True)
    }
    learned = [0.0] * len(kept)
    for space in spaces:
        inner = [s for s in spaces if s != space]
        scores = {}
        for (name, session), make in systems.items():
            inner_scores: list[float] = []
            for test in inner:
                train = {s for s in inner if s != test}
                drop = 0 if session else session_width(second)
                inner_scores += held_out(kept, table, train, {test}, make, drop).values()
            scores[(name, session)] = statistics.fmean(inner_scores)
        chosen = max(scores, key=lambda key: scores[key])
        label = f"{chosen[0]}{', session features' if chosen[1] else ''}"
        drop = 0 if chosen[1] else session_width(second)
        for n, r in held_out(kept, table, set(inner), {space}, systems[chosen], drop).items():
            learned[n] = r
        mine = [i for i, k in enumerate(kept) if k.space == space]
        ranked = statistics.fmean(learned[i] for i in mine)
        base = statistics.fmean(fusion[i] for i in mine)
        low_high = paired_interval([learned[i] for i in mine], [fusion[i] for i in mine])
        print(
            f"{space}: chose {label} (inner R@10 {scores[chosen]:.3f}); held-out R@10 "
            f"{ranked:.3f} against the fusion's {base:.3f}, gain {low_high[0]:+.3f} "
            f"[{low_high[1]:+.3f}, {low_high[2]:+.3f}]",
            flush=True,
        )
        figures.add(f"{space}: learned ranker R@10", ranked)
        figures.add(f"{space}: fusion R@10", base)
    mean, low, high = mean_interval(learned)
    gain = paired_interval(learned, fusion)
    print(
        f"all {len(kept)} questions: learned ranker R@10 {mean:.3f} [{low:.3f}, {high:.3f}], "
        f"fusion {statistics.fmean(fusion):.3f}; gain {gain[0]:+.3f} "
        f"[{gain[1]:+.3f}, {gain[2]:+.3f}]"
    )
    figures.add("learned ranker R@10, held out", mean)
    figures.add("fusion R@10 on the same lists", statistics.fmean(fusion))
    for category, name in CATEGORIES.items():
        mine = [i for i, k in enumerate(kept) if k.category == category]
        if mine:
            ranked = statistics.fmean(learned[i] for i in mine)
            base = statistics.fmean(fusion[i] for i in mine)
            print(f"  {name:<12} {ranked:.3f} against {base:.3f} (n={len(mine)})")
            figures.add(f"learned ranker R@10, {name}", ranked)
            figures.add(f"fusion R@10, {name}", base)
    figures.write(args.json_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
