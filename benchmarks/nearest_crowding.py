"""Nearest neighbours of one space while other spaces share the vector index
(graphmem_neo4j/nearest.py), on both engines, in one run.

    python benchmarks/nearest_crowding.py                       # 100 x 2,000 and 5 x 50,000
    python benchmarks/nearest_crowding.py --layouts 100x2000
    python benchmarks/nearest_crowding.py --engines neo4j,neo4j-2026   # 5.26 beside 2026

Engines: falkordb, neo4j (the local 5.26 LTS) and neo4j-2026 (the local 2026 line, whose
SEARCH filters the index by space: `graphmem neo4j install --line 2026` first).

Turns are written straight into the store (portability/node_turn) with 384-d vectors drawn
around 300 topic centres shared by every space (tenants talk about the same things), so the
index's neighbourhood of a query holds every space's turns. For queries drawn the same way,
per engine and layout: recall@10 of `nearest()` against an exact scan of the space (computed
here), its p50/p95 latency, the share of queries settled by the index alone, and the latency
of the exact scan of the space (`exact=True`) as the baseline.
"""

from __future__ import annotations

import argparse
import math
import random
import socket
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from figures import Figures, add_json_out  # noqa: E402

from graphmem_neo4j import nearest as nearest_module  # noqa: E402
from graphmem_neo4j.embedder import HashEmbedder  # noqa: E402
from graphmem_neo4j.memory import GraphMemory  # noqa: E402
from graphmem_neo4j.nearest import nearest_one  # noqa: E402
from graphmem_neo4j.settings import Settings  # noqa: E402
from graphmem_neo4j.store.embedded import EmbeddedServer  # noqa: E402
from graphmem_neo4j.store.local_neo4j import LINES, LocalNeo4j  # noqa: E402

DIM = 384
K = 10


class Fixed384(HashEmbedder):
    """Only its name and dimension matter: the vectors are written directly."""

    def __init__(self) -> None:
        super().__init__(DIM)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def unit(v: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in v))
    return [x / norm for x in v]


def around(centre: list[float], rng: random.Random, spread: float) -> list[float]:
    return unit([c + spread * rng.gauss(0, 1) / math.sqrt(DIM) for c in centre])


def build(
    memory: GraphMemory, spaces: int, per_space: int, centres: list[list[float]]
) -> list[list[float]]:
    """Write the spaces; returns the vectors of space 0 (the one queried)."""
    rng = random.Random(5)
    ours: list[list[float]] = []
    started = time.perf_counter()
    for s in range(spaces):
        vectors = [around(rng.choice(centres), rng, 1.2) for _ in range(per_space)]
        if s == 0:
            ours = vectors
        rows = [
            {
                "id": f"t{i}",
                "props": {"session": "s", "seq": i, "speaker": "A", "text": f"{i}"},
                "embedding": v,
            }
            for i, v in enumerate(vectors)
        ]
        memory.store.write_batches(
            "portability/node_turn", rows, batch_size=500, params={"space": f"space{s}"}
        )
    print(
        f"    built {spaces * per_space:,} turns in {time.perf_counter() - started:.0f}s",
        flush=True,
    )
    return ours


def measure(
    memory: GraphMemory, ours: list[list[float]], queries: list[list[float]]
) -> tuple[str, float]:
    """The printed line and the mean recall@10 against an exact scan."""
    recalls, times, exact_times, settled = [], [], [], 0
    original = memory.store.read
    reads: list[str] = []

    def counting(query: str, params: object = None) -> object:
        reads.append(query)
        return original(query, params)  # type: ignore[arg-type]

    memory.store.read = counting  # type: ignore[method-assign]
    for q in queries:
        truth = sorted(
            range(len(ours)), key=lambda i: -sum(a * b for a, b in zip(ours[i], q, strict=True))
        )[:K]
        reads.clear()
        start = time.perf_counter()
        got = nearest_one(memory.store, "conversation/search_vector", q, space="space0", k=K)
        times.append((time.perf_counter() - start) * 1000)
        settled += not any(r.endswith("_exact") for r in reads)
        ids = {int(str(h["id"])[1:]) for h in got}
        recalls.append(len(ids & set(truth)) / K)
        start = time.perf_counter()
        nearest_one(memory.store, "conversation/search_vector", q, space="space0", k=K, exact=True)
        exact_times.append((time.perf_counter() - start) * 1000)
    memory.store.read = original  # type: ignore[method-assign]
    recall = sum(recalls) / len(recalls)
    return (
        f"recall@10 vs exact {recall:.3f} (min {min(recalls):.1f}); "
        f"nearest() p50/p95 {pct(times, 0.5):.1f}/{pct(times, 0.95):.1f} ms, "
        f"index alone settled {settled}/{len(queries)}; "
        f"exact scan of the space p50/p95 "
        f"{pct(exact_times, 0.5):.1f}/{pct(exact_times, 0.95):.1f} ms"
    ), recall


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--layouts", default="100x2000,5x50000", help="spaces x turns, ...")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--engines", default="falkordb,neo4j", help="of falkordb,neo4j,neo4j-2026")
    add_json_out(parser)
    args = parser.parse_args(argv)
    figures = Figures("nearest_crowding")
    rng = random.Random(1)
    centres = [unit([rng.gauss(0, 1) for _ in range(DIM)]) for _ in range(300)]
    queries = [around(rng.choice(centres), rng, 1.2) for _ in range(args.queries)]
    print(
        f"first round asks {nearest_module.FIRST_CANDIDATES} candidates (at least 4k), "
        f"at most {nearest_module.MAX_CANDIDATES} before an exact scan"
    )
    with tempfile.TemporaryDirectory(prefix="graphmem-crowd-") as tmp:
        for layout in args.layouts.split(","):
            spaces, per_space = (int(x) for x in layout.split("x"))
            for engine in args.engines.split(","):
                home = Path(tmp) / f"{engine}-{layout}"
                print(f"{engine}, {spaces} spaces x {per_space:,} turns:", flush=True)
                if engine == "falkordb":
                    server = EmbeddedServer(home, free_port())
                    server.ensure_running()
                    settings = Settings(home=home, embedded_port=server.port, database="crowd")
                    stop = server.stop
                else:
                    line = LINES["2026" if engine == "neo4j-2026" else "5.26"]
                    neo4j = LocalNeo4j(home, free_port(), heap="2g", pagecache_mb=1024, line=line)
                    neo4j.start()
                    settings = Settings(uri=neo4j.uri, password=neo4j.password())
                    stop = neo4j.stop
                try:
                    with GraphMemory(settings, embedder=Fixed384()) as memory:
                        memory.init()
                        ours = build(memory, spaces, per_space, centres)
                        line, recall = measure(memory, ours, queries)
                        print("    " + line, flush=True)
                        figures.add(
                            f"{engine}, {spaces} spaces x {per_space} turns: recall@10 vs exact",
                            recall,
                        )
                finally:
                    stop()
    figures.write(args.json_out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
