"""Ingest throughput and search latency of the conversation layer on synthetic data.

    python benchmarks/conversation_scale.py --turns 10000
    python benchmarks/conversation_scale.py --turns 100000 --reuse-embeddings --home DIR

Ingestion is timed end to end with the default embedder (all-MiniLM-L6-v2 on graphmem's numpy
runtime, loaded before the clock starts; --embedder minilm-st for sentence-transformers).
Search latency is the wall time of `ConversationService.search` (query embedding included: the
query memo is emptied before each call; model load excluded) over --queries synthetic
questions per mode, printed next to the floor measured in the same run: one query embedding
plus one vector-index query (`conversation/search_vector` for k = 10 with the first round's
candidates, as `vector` mode's lookup sends it), with each mode's p50 and p95 over the floor's.
--reuse-embeddings embeds each distinct sentence once while *building* a large space (the
templates repeat); it makes the build faster and is reported, it does not touch searching.
--home DIR keeps the built graph there; a later run with the same --turns and --home searches
it again without building it (ingestion is then not reported).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conversation_synthetic import synthetic_queries, synthetic_turns
from figures import Figures, add_json_out
from fusion_cv import ingested_texts


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class ReusingEmbedder:
    """Same model, same vectors; a text seen before is not embedded again."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.cache: dict[str, list[float]] = {}
        self.reuse = True

    @property
    def dimension(self) -> int:
        return int(self.inner.dimension)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not self.reuse:
            return list(self.inner.embed(texts))
        missing = list(dict.fromkeys(t for t in texts if t not in self.cache))
        for text, vec in zip(missing, self.inner.embed(missing), strict=True):
            self.cache[text] = vec
        return [self.cache[t] for t in texts]


def floor_times(store: Any, embedder: Any, queries: Sequence[str], space: str) -> list[float]:
    """Per query: embed it, then one query on the turn vector index, the first (and, in a
    one-space graph, only) request `vector` mode's nearest-neighbour lookup makes for k = 10."""
    from graphmem_neo4j.nearest import FIRST_CANDIDATES, RERANK_MARGIN

    def knn(query: str) -> None:
        probe = {"key": "q", "embedding": embedder.embed([query])[0]}
        params = {
            "space": space,
            "k": 10,
            "min_similarity": -1.0,
            "rerank_margin": RERANK_MARGIN,
            "probes": [probe],
        }
        store.read("conversation/search_vector", {**params, "candidates": FIRST_CANDIDATES})

    knn(queries[0])
    times = []
    for q in queries:
        t0 = time.perf_counter()
        knn(q)
        times.append(time.perf_counter() - t0)
    return times


class FullCollections:
    """Python's full garbage collections while open, and the longest: a pause stalls every
    search in flight, so a few of them can set p95."""

    def __init__(self) -> None:
        self.pauses: list[float] = []
        self._started = 0.0

    def _note(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.pauses.append(time.perf_counter() - self._started)

    def __enter__(self) -> FullCollections:
        gc.callbacks.append(self._note)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._note)

    def __str__(self) -> str:
        longest = 1000 * max(self.pauses, default=0.0)
        return f"{len(self.pauses)} full GCs, longest {longest:.0f} ms"


def build(
    memory: Any,
    base: Any,
    embedder: ReusingEmbedder,
    turns: Sequence[Any],
    reuse: bool,
    figures: Figures,
) -> None:
    """Ingest the turns into space "scale", printing the throughput."""
    # The ceiling on this machine right now: the model alone on the same texts.
    sample = ingested_texts(turns[:1000])
    t0 = time.perf_counter()
    base.embed(sample)
    alone = len(sample) / (time.perf_counter() - t0)
    print(f"embedder alone: {alone:.1f} texts/s on {len(sample)} of these turns")
    started = time.perf_counter()
    done = 0
    step = 2000
    for start in range(0, len(turns), step):
        report = memory.conversation.add_turns(
            turns[start : start + step], space="scale", forget_every=0
        )
        done += report.turns_written
        elapsed = time.perf_counter() - started
        print(f"  {done} turns, {done / elapsed:.1f} turns/s", flush=True)
    seconds = time.perf_counter() - started
    stats = memory.stats("scale")
    how = "repeated sentences embedded once" if reuse else "all embedded"
    print(
        f"ingest: {done} turns in {seconds:.1f}s = {done / seconds:.1f} turns/s "
        f"({how}); {stats['total_nodes']} nodes, "
        f"{stats['total_relationships']} relationships"
    )
    figures.add(f"ingest, {done} turns", done / seconds, "turns/s")


VARIANTS: dict[str, Any] = {
    "hybrid+spread": lambda w: {"spread_only_several": False},
    "hybrid+concept": lambda w: {"concept": w.concept or 0.6, "concept_only_several": False},
    "hybrid+graph": lambda w: {
        "spread_only_several": False,
        "concept": w.concept or 0.6,
        "concept_only_several": False,
    },
    "hybrid-graph": lambda w: {"graph": 0.0, "spread": 0.0, "concept": 0.0, "dated": 0.0},
    "hybrid-concept": lambda w: {"concept": 0.0, "concept_roots": 0},
    "hybrid-dated": lambda w: {"dated": 0.0},
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--modes",
        default="hybrid,vector,fulltext,sf",
        help="search modes; hybrid+spread, hybrid+concept, hybrid+graph: hybrid with the "
        "spreading stage, the concept source or both for every query; hybrid-graph: hybrid "
        "without the graph sources; hybrid-concept: without the concept source (the learned "
        "ranker still ranking, when it ranks by default); hybrid-dated: "
        "without the time signal for questions asking when",
    )
    parser.add_argument("--reuse-embeddings", action="store_true")
    parser.add_argument("--embedder", choices=("minilm", "minilm-st", "hash"), default="minilm")
    parser.add_argument("--home", type=Path, help="keep the graph here and reuse it")
    add_json_out(parser)
    args = parser.parse_args(argv)
    figures = Figures("conversation_scale")

    from graphmem_neo4j.conversation.ranker import chosen_ranker
    from graphmem_neo4j.conversation.service import ConversationService
    from graphmem_neo4j.embedder import HashEmbedder, NumpyEmbedder, SentenceTransformerEmbedder
    from graphmem_neo4j.memory import GraphMemory
    from graphmem_neo4j.settings import Settings
    from graphmem_neo4j.store.embedded import EmbeddedServer

    kinds = {"minilm": NumpyEmbedder, "minilm-st": SentenceTransformerEmbedder}
    kinds["hash"] = HashEmbedder
    base: Any = kinds[args.embedder]()
    loaded = time.perf_counter()
    base.embed(["warm up"])
    print(f"model load {time.perf_counter() - loaded:.1f}s (excluded)")
    embedder = ReusingEmbedder(base)
    embedder.reuse = args.reuse_embeddings
    queries = synthetic_queries(args.queries)
    with contextlib.ExitStack() as cleanup:
        if args.home is None:
            home = Path(
                cleanup.enter_context(tempfile.TemporaryDirectory(prefix="graphmem-scale-"))
            )
            database = f"scale_{uuid.uuid4().hex[:8]}"
        else:
            home, database = args.home, f"scale_{args.turns}_{args.embedder}"
        server = EmbeddedServer(home)  # the Unix socket, as graphmem runs by default
        server.ensure_running()
        try:
            settings = Settings(home=home, database=database)
            with GraphMemory(settings, embedder=embedder) as memory:
                memory.init()
                service = memory.conversation
                built = 0
                if args.home is not None and any(s["id"] == "scale" for s in memory.spaces()):
                    built = memory.stats("scale")["nodes"].get("Turn", 0)
                if built == args.turns:
                    print(f"reusing the {built} turns in {home} (database {database})")
                else:
                    build(
                        memory,
                        base,
                        embedder,
                        synthetic_turns(args.turns),
                        args.reuse_embeddings,
                        figures,
                    )
                # An agent that ingests and then searches does not keep the build's input rows
                # and sentence cache; held here, they made each full garbage collection of the
                # searches below take 120-155 ms at 30k turns (8 in 200 searches).
                embedder.cache.clear()
                gc.collect()
                embedder.reuse = False
                done = args.turns
                embed_times = []
                for q in queries:
                    t0 = time.perf_counter()
                    base.embed([q])
                    embed_times.append(time.perf_counter() - t0)
                print(
                    f"query embedding alone: p50 {1000 * percentile(embed_times, 0.5):6.1f} ms"
                    f"   p95 {1000 * percentile(embed_times, 0.95):6.1f} ms (part of every mode but"
                    " fulltext)"
                )
                floor = floor_times(memory.store, base, queries, "scale")
                floor50, floor95 = 1000 * percentile(floor, 0.5), 1000 * percentile(floor, 0.95)
                print(
                    f"floor (one query embedding + one vector-index query): p50 {floor50:6.1f} ms"
                    f"   p95 {floor95:6.1f} ms"
                )
                figures.add(f"search floor p95 at {done} turns", floor95, "ms")
                for name in args.modes.split(","):
                    # hybrid+spread / hybrid+concept / hybrid+graph: every query takes the
                    # spreading stage, the concept source or both, which by default run only
                    # for questions asking for several facts; hybrid-graph: neither, nor the
                    # entity lookup (the conversational signals alone)
                    mode = name.split("+")[0].split("-")[0]
                    searcher = service
                    if name in VARIANTS:
                        config = service.config
                        weights = replace(config.weights, **VARIANTS[name](config.weights))
                        # Without the concept source, the learned ranker (if it ranks by
                        # default) still ranks; the other variants are the fusion's rules.
                        learned = chosen_ranker(config, base.name) is not None
                        keep = name == "hybrid-concept" and learned
                        ranking = "learned" if keep else config.ranking
                        searcher = ConversationService(
                            memory.parts, replace(config, weights=weights, ranking=ranking)
                        )
                    searcher.search(queries[0], space="scale", mode=mode)  # type: ignore[arg-type]
                    times = []
                    with FullCollections() as collections:
                        for q in queries:
                            memory.embedder.clear()  # type: ignore[attr-defined]
                            t0 = time.perf_counter()
                            searcher.search(q, space="scale", k=10, mode=mode, touch=True)  # type: ignore[arg-type]
                            times.append(time.perf_counter() - t0)
                    p50, p95 = 1000 * percentile(times, 0.5), 1000 * percentile(times, 0.95)
                    print(
                        f"search {name:<14} at {done} turns: p50 {p50:6.1f} ms   p95 {p95:6.1f} ms"
                        f"   ({len(times)} queries; {p50 / floor50:.2f}× / {p95 / floor95:.2f}× "
                        f"the floor; {collections})",
                        flush=True,
                    )
                    figures.add(f"search {name} p95 at {done} turns", p95, "ms")
                    figures.add(f"search {name} p95 at {done} turns / floor", p95 / floor95, "x")
        finally:
            server.stop()
    figures.write(args.json_out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
