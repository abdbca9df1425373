"""Foundation figures: batched writes, embedding throughput, CLI start-up, server cold start.

    python benchmarks/foundation.py [--nodes 20000] [--texts 2000]

Each figure is printed beside a baseline measured in the same run (single-row writes, the hash
embedder, a bare `python -c pass`, an empty server), so a ratio survives a busy machine.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from figures import Figures, add_json_out

from graphmem_neo4j.embedder import HashEmbedder, SentenceTransformerEmbedder
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store import open_store
from graphmem_neo4j.store.embedded import EmbeddedServer

WORDS = (
    "memory graph agent turn session entity relation fact insight task trajectory action "
    "observation query evidence path subject category context value change update"
).split()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rows(n: int, offset: int = 0) -> list[dict[str, object]]:
    return [
        {"id": f"n{offset + i}", "props": {"created_at": i, "note": f"node {offset + i}"}}
        for i in range(n)
    ]


def bench_writes(home: Path, port: int, nodes: int, figures: Figures) -> None:
    store = open_store(Settings(home=home, embedded_port=port, database="bench_writes"))
    store.write("core/schema_space_key")
    store.ensure_unique("Space", ("space", "id"))
    single = 500
    start = time.perf_counter()
    for row in rows(single, offset=10_000_000):
        store.write("portability/node_space", {"space": "bench", "rows": [row]})
    single_rate = single / (time.perf_counter() - start)
    data = rows(nodes)
    start = time.perf_counter()
    store.write_batches("portability/node_space", data, batch_size=1000, params={"space": "bench"})
    batch_rate = nodes / (time.perf_counter() - start)
    start = time.perf_counter()
    store.write_batches("portability/node_space", data, batch_size=1000, params={"space": "bench"})
    rerun_rate = nodes / (time.perf_counter() - start)
    count = store.read("core/count_labels", {"space": "bench"})
    print(
        f"batched node writes (1000 per batch, merged on space and id): {batch_rate:,.0f} nodes/s"
    )
    print(f"  re-run of the same batch (idempotent merge, no new nodes): {rerun_rate:,.0f} nodes/s")
    print(
        f"  baseline, one node per statement: {single_rate:,.0f} nodes/s "
        f"(batching x{batch_rate / single_rate:.0f})"
    )
    print(f"  nodes stored: {count}")
    figures.add("batched node writes", batch_rate, "nodes/s")
    figures.add("one node per statement", single_rate, "nodes/s")
    store.close()


def bench_embeddings(texts: int, figures: Figures) -> None:
    sample = [" ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(18)) for i in range(texts)]
    model = SentenceTransformerEmbedder()
    start = time.perf_counter()
    model.embed(sample[:8])
    load = time.perf_counter() - start
    start = time.perf_counter()
    model.embed(sample)
    rate = texts / (time.perf_counter() - start)
    hashing = HashEmbedder(384)
    start = time.perf_counter()
    hashing.embed(sample)
    hash_rate = texts / (time.perf_counter() - start)
    print(
        f"embedding, all-MiniLM-L6-v2 on CPU: {rate:,.0f} texts/s (18-word texts, batch 64; "
        f"model load {load:.1f}s)"
    )
    print(f"  baseline, hash embedder: {hash_rate:,.0f} texts/s")
    figures.add("embedding, all-MiniLM-L6-v2", rate, "texts/s")
    figures.add("embedding, hash embedder", hash_rate, "texts/s")


def bench_help(figures: Figures) -> None:
    def timed(cmd: list[str]) -> float:
        runs = []
        for _ in range(7):
            start = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            runs.append(time.perf_counter() - start)
        return statistics.median(runs)

    graphmem = Path(sys.executable).parent / "graphmem"
    help_s = timed([str(graphmem), "--help"])
    bare_s = timed([sys.executable, "-c", "pass"])
    print(
        f"`graphmem --help` wall time: {help_s * 1000:.0f} ms median of 7 "
        f"(target < 500 ms); baseline `python -c pass`: {bare_s * 1000:.0f} ms"
    )
    figures.add("graphmem --help, median", help_s * 1000, "ms")
    figures.add("python -c pass, median", bare_s * 1000, "ms")


def bench_cold_start(nodes: int, figures: Figures) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        empty = EmbeddedServer(Path(tmp) / "empty", free_port())
        start = time.perf_counter()
        empty.ensure_running()
        empty_s = time.perf_counter() - start
        empty.stop()

        server = EmbeddedServer(Path(tmp) / "full", free_port())
        server.ensure_running()
        settings = Settings(home=server.home, embedded_port=server.port)
        memory = GraphMemory(settings, embedder=HashEmbedder(384))
        memory.init()  # the migrations, as `graphmem init` runs them
        memory.store.write_batches(
            "portability/node_space", rows(nodes), batch_size=1000, params={"space": "bench"}
        )
        memory.close()
        pid = server.status().pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        start = time.perf_counter()
        server.ensure_running()
        crash_s = time.perf_counter() - start
        server.stop()
        aof = server.status().aof_bytes
        start = time.perf_counter()
        server.ensure_running()
        full_s = time.perf_counter() - start
        store = open_store(settings)
        count = store.read("core/count_labels", {"space": "bench"})[0]["count"]
        store.close()
        server.stop()
    print(
        f"embedded server cold start with {count:,} stored nodes: {full_s * 1000:.0f} ms after "
        f"`graphmem server stop` (AOF compacted, {aof / 1e6:.1f} MB), {crash_s * 1000:.0f} ms "
        f"after kill -9 (AOF replay); baseline empty: {empty_s * 1000:.0f} ms"
    )
    figures.add("server cold start, 10k nodes, after server stop", full_s * 1000, "ms")
    figures.add("server cold start, 10k nodes, after kill -9", crash_s * 1000, "ms")
    figures.add("server cold start, empty", empty_s * 1000, "ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--texts", type=int, default=2_000)
    add_json_out(parser)
    args = parser.parse_args()
    figures = Figures("foundation")
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedServer(Path(tmp), free_port())
        server.ensure_running()
        try:
            bench_writes(Path(tmp), server.port, args.nodes, figures)
        finally:
            server.stop()
    bench_embeddings(args.texts, figures)
    bench_help(figures)
    bench_cold_start(10_000, figures)
    figures.write(args.json_out)


if __name__ == "__main__":
    main()
