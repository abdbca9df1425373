"""What the width of a stored vector costs Neo4j: on one local Neo4j (5.26, or 2026 with
`--line 2026`), two spaces of the same synthetic turns, one ingested as graphmem does (each
turn's vector written by db.create.setNodeVectorProperty: 32-bit floats) and one with the
vector `SET` from Cypher (a list of floats: 64-bit), in alternating chunks so that both lie
alike on disk. Printed: each space's ingestion time, and the turn search's server time on
each: the index lookup with and without its rescore of the candidates' stored vectors, and
the exact scan of the space (what a space of up to `exact_scan_turns` turns runs).

    python benchmarks/vector_width.py --turns 10000 --queries 100

The searches run in a shuffled order for each question, over `--rounds` rounds after an
untimed one; the figures are the server's time per call (result_available_after +
result_consumed_after), so neither the driver nor the model counts.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from conversation_synthetic import synthetic_queries, synthetic_turns  # noqa: E402
from engine_parity import free_port, pct  # noqa: E402
from engine_reads import CachedEmbedder  # noqa: E402
from figures import Figures, add_json_out  # noqa: E402

import graphmem_neo4j.store.neo4j_store as neo4j_store  # noqa: E402
from graphmem_neo4j.embedder import NumpyEmbedder  # noqa: E402
from graphmem_neo4j.memory import GraphMemory  # noqa: E402
from graphmem_neo4j.nearest import RERANK_MARGIN  # noqa: E402
from graphmem_neo4j.queries import load_query  # noqa: E402
from graphmem_neo4j.settings import Settings  # noqa: E402
from graphmem_neo4j.store.local_neo4j import LINES, LocalNeo4j  # noqa: E402

UPSERT = "conversation/upsert_turns"
PROCEDURE = "WITH s, t, row\nCALL db.create.setNodeVectorProperty(t, 'embedding', row.embedding)\n"
SET = "t.context_embedded = true"
RESCORE = "2 * vector.similarity.cosine(c.t.embedding, probe.embedding) - 1"
SPACES = {"32-bit": "w32", "64-bit": "w64"}


def with_set(text: str) -> str:
    """The shipped turn upsert with the vector SET from Cypher instead."""
    if PROCEDURE not in text or SET not in text:
        raise SystemExit(f"{UPSERT}.neo4j.cypher no longer writes the vector as expected")
    return text.replace(PROCEDURE, "").replace(SET, f"{SET}, t.embedding = row.embedding")


def ingest(memory: GraphMemory, turns: list[Any], figures: Figures) -> None:
    """Both spaces, chunk by chunk in turn (which goes first alternates); each space's time.
    A third space is ingested first so that the model's vectors are cached (CachedEmbedder):
    the times are the store's."""
    for i in range(0, len(turns), 2000):
        memory.conversation.add_turns(turns[i : i + 2000], space="warm", forget_every=0)
    shipped = getattr(neo4j_store, "load_query")  # noqa: B009 (the one being replaced)
    spent = dict.fromkeys(SPACES, 0.0)

    def set_vectors(query: str, dialect: Any, *, search: bool = False) -> str:
        text = shipped(query, dialect, search=search)
        return with_set(text) if query == UPSERT else text

    try:
        for i in range(0, len(turns), 2000):
            order = list(SPACES.items())
            for width, space in order if i % 4000 == 0 else order[::-1]:
                loader = shipped if width == "32-bit" else set_vectors
                setattr(neo4j_store, "load_query", loader)  # noqa: B010
                start = time.perf_counter()
                memory.conversation.add_turns(turns[i : i + 2000], space=space, forget_every=0)
                spent[width] += time.perf_counter() - start
    finally:
        setattr(neo4j_store, "load_query", shipped)  # noqa: B010
    for width, seconds in spent.items():
        print(f"ingestion, {width} vectors: {len(turns) / seconds:.1f} turns/s")
        figures.add(f"ingest, {width} vectors", len(turns) / seconds, "turns/s")


def timed(
    store: Any, vectors: list[list[float]], args: argparse.Namespace
) -> dict[str, list[float]]:
    """Server ms per turn search in each space, with and without the rescore."""
    shipped = load_query("conversation/search_vector", "neo4j")
    if RESCORE not in shipped:
        raise SystemExit("conversation/search_vector.neo4j.cypher no longer rescores as expected")
    queries = {
        "": shipped,
        ", no rescore": shipped.replace(RESCORE, "c.similarity"),
        # what a space below exact_scan_turns runs instead: every vector of the space read
        ", exact scan": load_query("conversation/search_vector_exact", "neo4j"),
    }
    runs = [(width, kind) for width in SPACES for kind in queries]
    times: dict[str, list[float]] = {f"{w} vectors{k}": [] for w, k in runs}
    shuffle = random.Random(0)
    for round_ in range(args.rounds + 1):
        for vector in vectors:
            shuffle.shuffle(runs)
            for width, kind in runs:
                params = {
                    "space": SPACES[width],
                    "probes": [{"key": "", "embedding": vector}],
                    # what nearest() asks first for k = 100 in a space holding a third of it
                    "candidates": 660,
                    "k": 100,
                    "rerank_margin": 2 * store.vector_index_error or RERANK_MARGIN,
                }
                _, summary, _ = store._driver.execute_query(queries[kind], params)
                if round_:
                    served = summary.result_available_after + summary.result_consumed_after
                    times[f"{width} vectors{kind}"].append(float(served))
    return times


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=10000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--line", choices=sorted(LINES), default="5.26")
    add_json_out(parser)
    args = parser.parse_args(argv)
    figures = Figures("vector_width")
    line = LINES[args.line]
    embedder = CachedEmbedder(NumpyEmbedder())
    turns = synthetic_turns(args.turns)
    with tempfile.TemporaryDirectory() as home:
        server = LocalNeo4j(Path(home) / line.folder, free_port(), line=line)
        server.start()
        try:
            settings = Settings(uri=server.uri, password=server.password())
            with GraphMemory(settings, embedder=embedder) as memory:
                memory.init()
                ingest(memory, turns, figures)
                queries = embedder.embed(synthetic_queries(args.queries))
                times = timed(memory.store, queries, args)
        finally:
            server.stop()
    for name, values in times.items():
        mean = sum(values) / len(values)
        print(
            f"[neo4j {line.name}] turn search, {name}: server time mean {mean:.2f} ms,"
            f" p50 {pct(values, 0.5):.1f}, p95 {pct(values, 0.95):.1f}"
        )
        figures.add(f"neo4j {line.name}: search_vector server mean, {name}", mean, "ms")
    figures.write(args.json_out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
