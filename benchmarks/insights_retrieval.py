"""Utility-aware retrieval latency (EvoGraph-Mem §3.3) at scale.

    python benchmarks/insights_retrieval.py [--queries 10000] [--insights 5000] [--runs 1000]

Builds a synthetic insights space in a fresh embedded FalkorDB: --queries recorded queries in
topics of 20 (384-d unit vectors: a random topic centre plus noise; precomputed, no model), each
linked to up to 3 earlier queries of its topic; --insights insights, 20% archived, each with 2-6
positive queries of its topic (sometimes one elsewhere) and 0-3 negative ones. Each query has
one of the six structures of ALFWorld's domain pack, drawn at random (so a topic mixes them,
as ALFWorld goals that read alike do). Loading goes through the layer's portability queries.

Then it times `InsightService.retrieve_by_vector` (the space check, the kNN of eq. 2, the
expansion and scoring of eq. 3-10; no model: the query vector is given) for --runs new queries
near random topic centres: with a goal text and its task_type, so that only queries of its
structure count (the index keeps about one candidate in six; the space's goal model is
consulted too, one count query); with the goal text alone (its structure read by the space's
goal model; the lexical channel re-ranks, and may look again without the structure filter);
and without either (sentence similarity alone); and, as the
reference in the same run, the kNN query alone. The target is p95 ≤ 30 ms at 10k queries and
5k insights.
"""

from __future__ import annotations

import argparse
import math
import random
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from figures import Figures, add_json_out

from graphmem_neo4j.domain_packs.alfworld import PROCEDURES
from graphmem_neo4j.domain_packs.alfworld import procedure as task_key
from graphmem_neo4j.embedder import HashEmbedder
from graphmem_neo4j.insights.models import RetrievalParams
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.nearest import nearest_one
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store.embedded import EmbeddedServer

DIM = 384
TOPIC = 20
SPACE = "bench-insights"
GOALS = {
    "heat": "heat some egg and put it in countertop",
    "cool": "put a cool tomato in microwave",
    "clean": "clean some mug and put it in coffeemachine",
    "light": "look at alarmclock under the desklamp",
    "two": "put two soapbar in garbagecan",
    "place": "put some box on armchair",
}
assert all(task_key(goal) == key for key, goal in GOALS.items())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def unit(v: list[float]) -> list[float]:
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def near(rng: random.Random, centre: list[float], noise: float) -> list[float]:
    return unit([c + rng.gauss(0, noise) for c in centre])


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def build(rng: random.Random, n_queries: int, n_insights: int) -> dict[str, Any]:
    topics = max(1, n_queries // TOPIC)
    centres = [unit([rng.gauss(0, 1) for _ in range(DIM)]) for _ in range(topics)]
    queries: list[dict[str, Any]] = []
    similar: list[dict[str, Any]] = []
    members: list[list[str]] = [[] for _ in range(topics)]
    vectors: dict[str, list[float]] = {}
    for i in range(n_queries):
        topic = i % topics
        qid = f"q{i}"
        vec = near(rng, centres[topic], 0.04)
        vectors[qid] = vec
        for earlier in members[topic][-3:]:
            sim = cosine(vec, vectors[earlier])
            similar.append({"source": qid, "target": earlier, "props": {"similarity": sim}})
        members[topic].append(qid)
        queries.append(
            {
                "id": qid,
                "props": {
                    "text": f"query {i} on topic {topic}",
                    "status": "resolved",
                    "created_at": i,
                    "recorded_at": i,
                    # task structures mixed within a topic: the keyed lookup keeps ~1/6 of
                    # the nearest candidates, its worst case
                    "task_key": rng.choice(PROCEDURES),
                },
                "embedding": vec,
            }
        )
    insights: list[dict[str, Any]] = []
    positive: list[dict[str, Any]] = []
    negative: list[dict[str, Any]] = []
    for j in range(n_insights):
        topic = j % topics
        iid = f"i{j}"
        insights.append(
            {
                "id": iid,
                "props": {
                    "text": f"insight {j} for topic {topic}",
                    "active": rng.random() > 0.2,
                    "created_at": j,
                    "updated_at": j,
                },
                "embedding": near(rng, centres[topic], 0.1),
            }
        )
        own = members[topic]
        chosen = set(rng.sample(own, min(len(own), rng.randint(2, 6))))
        if rng.random() < 0.2:
            chosen.add(f"q{rng.randrange(n_queries)}")
        positive += [{"source": iid, "target": q, "props": {}} for q in sorted(chosen)]
        against = set(rng.sample(own, min(len(own), rng.randint(0, 3)))) - chosen
        negative += [{"source": iid, "target": q, "props": {}} for q in sorted(against)]
    return {
        "centres": centres,
        "queries": queries,
        "similar": similar,
        "insights": insights,
        "positive": positive,
        "negative": negative,
    }


def load(memory: GraphMemory, data: dict[str, Any]) -> None:
    store = memory.store
    for query, rows in (
        ("portability/node_query", data["queries"]),
        ("portability/node_insight", data["insights"]),
        ("portability/rel_similar_query", data["similar"]),
        ("portability/rel_positive", data["positive"]),
        ("portability/rel_negative", data["negative"]),
    ):
        start = time.perf_counter()
        store.write_batches(query, rows, batch_size=1000, params={"space": SPACE})
        took = time.perf_counter() - start
        print(f"loaded {len(rows):>6} rows with {query} in {took:.1f} s", file=sys.stderr)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--insights", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-k", type=int, default=5)
    parser.add_argument("-b", type=int, default=5)
    add_json_out(parser)
    args = parser.parse_args()
    figures = Figures("insights_retrieval")
    rng = random.Random(args.seed)
    data = build(rng, args.queries, args.insights)
    params = RetrievalParams(k=args.k, b=args.b)
    with tempfile.TemporaryDirectory(prefix="graphmem-bench-") as home:
        server = EmbeddedServer(Path(home), free_port())
        server.ensure_running()
        try:
            settings = Settings(home=Path(home), embedded_port=server.port, database="bench")
            # The vectors are precomputed; the hash embedder only names the 384-d schema.
            with GraphMemory(settings, embedder=HashEmbedder(DIM)) as memory:
                memory.init()
                memory.ensure_space(SPACE)
                load(memory, data)
                probes = [
                    near(rng, rng.choice(data["centres"]), 0.05) for _ in range(args.runs + 50)
                ]
                full: list[float] = []
                keyed: list[float] = []
                worded: list[float] = []
                knn: list[float] = []
                returned: list[int] = []
                sizes: list[int] = []
                for i, vector in enumerate(probes):
                    goal = GOALS[PROCEDURES[i % len(PROCEDURES)]]
                    start = time.perf_counter()
                    result = memory.insights.retrieve_by_vector(
                        vector,
                        space=SPACE,
                        params=params,
                        query=goal,
                        task_type=PROCEDURES[i % len(PROCEDURES)],
                    )
                    keyed_took = (time.perf_counter() - start) * 1000
                    start = time.perf_counter()
                    memory.insights.retrieve_by_vector(
                        vector, space=SPACE, params=params, query=goal
                    )
                    worded_took = (time.perf_counter() - start) * 1000
                    start = time.perf_counter()
                    memory.insights.retrieve_by_vector(vector, space=SPACE, params=params)
                    took = (time.perf_counter() - start) * 1000
                    start = time.perf_counter()
                    nearest_one(
                        memory.store,
                        "insights/nearest_queries",
                        vector,
                        space=SPACE,
                        k=params.k,
                        params={"exclude": [], "task_key": None},
                    )
                    knn_took = (time.perf_counter() - start) * 1000
                    if i < 50:  # warm-up
                        continue
                    keyed.append(keyed_took)
                    worded.append(worded_took)
                    full.append(took)
                    knn.append(knn_took)
                    returned.append(len(result.insights))
                    sizes.append(result.query_set_size)
        finally:
            server.stop()
    print(
        f"\nretrieval over {args.queries} queries, {args.insights} insights "
        f"(k={args.k}, B={args.b}, {args.runs} runs, FalkorDB embedded):"
    )
    for name, values in (
        ("retrieve_by_vector with the task's goal and task_type", keyed),
        ("retrieve_by_vector with the goal (read; lexical channel)", worded),
        ("retrieve_by_vector without it (sentence similarity only)", full),
        ("kNN query alone", knn),
    ):
        figures.add(f"{name}, p95", percentile(values, 0.95), "ms")
        print(
            f"  {name:<58} p50 {percentile(values, 0.5):6.2f} ms  p95 "
            f"{percentile(values, 0.95):6.2f} ms  p99 {percentile(values, 0.99):6.2f} ms  "
            f"mean {statistics.fmean(values):6.2f} ms"
        )
    print(
        f"  mean |Q̃^S| {statistics.fmean(sizes):.1f} queries, mean insights returned "
        f"{statistics.fmean(returned):.2f}"
    )
    worst = max(percentile(v, 0.95) for v in (full, keyed, worded))
    verdict = "met" if worst <= 30 else "NOT met"
    print(f"  target p95 ≤ 30 ms: {verdict}")
    figures.write(args.json_out)


if __name__ == "__main__":
    main()
