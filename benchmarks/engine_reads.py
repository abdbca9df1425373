"""Where each engine's time goes in search and recall: every named read and write timed, on
the embedded FalkorDB and a local Neo4j (5.26, or 2026 with `--line 2026`) started here, over
one synthetic space.

    python benchmarks/engine_reads.py --turns 5000 --queries 100

Per engine and per query file: how often it ran during the timed searches and recalls, its
total, p50 and max as the client sees it; on Neo4j also the server's share (the driver's
result_available_after + result_consumed_after), so the rest is the round trip and decoding.
Both engines get the same embeddings (one cache), so differences are the engines'.
`--compare-reads` first times Neo4j's searches and recalls with its auto-commit reads against
managed read transactions, alternated query by query; `--compare-touch`, on each engine,
searches that write their access counts after the answer against ones that write them
first. `--rounds N` instead runs N rounds of
a search and a recall per question and prints each round's latencies and the CPU time the
server process and this one spent per pair (Linux): how a fresh JVM warms up.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from conversation_synthetic import synthetic_queries, synthetic_turns  # noqa: E402
from engine_parity import add_examples, free_port, pct  # noqa: E402
from figures import Figures, add_json_out  # noqa: E402

from graphmem_neo4j.embedder import NumpyEmbedder  # noqa: E402
from graphmem_neo4j.memory import GraphMemory  # noqa: E402
from graphmem_neo4j.queries import with_vector_search  # noqa: E402
from graphmem_neo4j.recall.cache import QueryMemo  # noqa: E402
from graphmem_neo4j.settings import Settings  # noqa: E402
from graphmem_neo4j.store.embedded import EmbeddedServer  # noqa: E402
from graphmem_neo4j.store.local_neo4j import LINES, LocalNeo4j  # noqa: E402


class CachedEmbedder:
    """One model for both engines; a text embedded once is not embedded again."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.cache: dict[str, list[float]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        todo = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if todo:
            self.cache.update(zip(todo, self.inner.embed(todo), strict=True))
        return [self.cache[t] for t in texts]


class Timings:
    """Wraps a store's read and write (and, on Neo4j, the driver call for the server time)."""

    def __init__(self, store: Any) -> None:
        self.client: dict[str, list[float]] = defaultdict(list)
        self.server: dict[str, list[float]] = defaultdict(list)
        self.on = False
        self.local = threading.local()
        for kind in ("read", "write"):
            setattr(store, kind, self._wrap(getattr(store, kind), kind))
        if hasattr(store, "observe"):  # Neo4j: the server's time, from each query's summary

            def observe(summary: Any) -> None:
                current = getattr(self.local, "query", None)
                if self.on and current:
                    ms = (summary.result_available_after or 0) + (
                        summary.result_consumed_after or 0
                    )
                    self.server[current].append(ms / 1000)

            store.observe = observe

    def _wrap(self, inner: Any, kind: str) -> Any:
        def timed(query: str, params: Any = None) -> Any:
            started = time.perf_counter()
            outer = getattr(self.local, "query", None)
            self.local.query = query
            try:
                return inner(query, params)
            finally:
                self.local.query = outer
                if self.on:
                    self.client[query].append(time.perf_counter() - started)

        return timed

    def report(self, name: str, calls: int) -> None:
        print(f"[{name}] per query over {calls} calls: count, total, p50, max (client); server")
        for query, values in sorted(self.client.items(), key=lambda kv: -sum(kv[1])):
            server = self.server.get(query)
            srv = f"{sum(server) * 1000:8.1f} ms" if server else ""
            print(
                f"  {query:<38} {len(values):5d} {sum(values) * 1000:8.1f} ms "
                f"{pct(values, 0.5) * 1000:6.1f} ms {max(values) * 1000:6.1f} ms {srv}"
            )
        self.client.clear()
        self.server.clear()


def run(
    name: str,
    settings: Settings,
    embedder: Any,
    args: argparse.Namespace,
    figures: Figures,
    server_pid: int | None,
) -> None:
    with GraphMemory(settings, embedder=embedder) as memory:
        memory.init()
        turns = synthetic_turns(args.turns)
        for i in range(0, len(turns), 2000):
            memory.conversation.add_turns(turns[i : i + 2000], space="scale", forget_every=0)
        add_examples(memory, "scale")
        queries = synthetic_queries(args.queries)
        for q in queries[:10]:  # warm-up: plans compiled, caches filled
            memory.recall(q, space="scale", budget_tokens=2000)
            memory.conversation.search(q, space="scale", k=10)
        if args.rounds:
            rounds(memory, queries, name, server_pid, args.rounds, figures)
            return
        if args.compare_reads and hasattr(memory.store, "_managed"):
            compare_reads(memory, synthetic_queries(args.queries), name, figures)
        if args.compare_touch:
            compare_touch(memory, synthetic_queries(args.queries), name, figures)
        if args.compare_queries is not None:
            compare_queries(memory, queries, args.compare_queries, name, figures)
            return
        timings = Timings(memory.store)
        for label in LABELS:
            timings.on = True
            times = [timed(memory, label, q) for q in queries]
            timings.on = False
            print(f"[{name}] {label} p50/p95 {pct(times, 0.5):.1f}/{pct(times, 0.95):.1f} ms")
            figures.add(f"{name}: {label} p50", pct(times, 0.5), "ms")
            figures.add(f"{name}: {label} p95", pct(times, 0.95), "ms")
            timings.report(f"{name} {label}", len(queries))


LABELS = ("search", "recall")


def timed(memory: GraphMemory, label: str, question: str) -> float:
    """One hybrid search or recall of `question` over the synthetic space, in ms, with the
    query memo emptied first (the embedder's own cache still answers)."""
    memo = memory.embedder
    assert isinstance(memo, QueryMemo)
    memo.clear()
    start = time.perf_counter()
    if label == "search":
        memory.conversation.search(question, space="scale", k=10)
    else:
        memory.recall(question, space="scale", budget_tokens=2000)
    return (time.perf_counter() - start) * 1000


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time a process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rounds(
    memory: GraphMemory,
    queries: Sequence[str],
    name: str,
    server_pid: int | None,
    count: int,
    figures: Figures,
) -> None:
    """`count` rounds of a search and a recall per query: per round the latencies and the CPU
    time the server process and this one spent per pair. A JVM compiles its hot code over its
    first several hundred queries, so Neo4j's figures fall from round to round. The engines
    share one embedding cache: the first engine's first round also embeds the questions."""
    for number in range(1, count + 1):
        server_before = cpu_seconds(server_pid) if server_pid else 0.0
        client_before = cpu_seconds(os.getpid())
        times: dict[str, list[float]] = {label: [] for label in LABELS}
        for q in queries:
            for label in LABELS:
                times[label].append(timed(memory, label, q))
        server = (cpu_seconds(server_pid) - server_before) if server_pid else float("nan")
        client = cpu_seconds(os.getpid()) - client_before
        per_pair = 1000 / len(queries)
        print(
            f"[{name}] round {number}: search p50/p95 {pct(times['search'], 0.5):.1f}/"
            f"{pct(times['search'], 0.95):.1f} ms, recall p50/p95 "
            f"{pct(times['recall'], 0.5):.1f}/{pct(times['recall'], 0.95):.1f} ms; CPU per "
            f"search and recall: server {server * per_pair:.1f} ms, client "
            f"{client * per_pair:.1f} ms",
            flush=True,
        )
        for label, values in times.items():
            figures.add(f"{name}: round {number} {label} p95", pct(values, 0.95), "ms")
        figures.add(f"{name}: round {number} server CPU per pair", server * per_pair, "ms")
        figures.add(f"{name}: round {number} client CPU per pair", client * per_pair, "ms")


def compare_reads(memory: GraphMemory, queries: Sequence[str], name: str, figures: Figures) -> None:
    """Neo4j's reads as the store sends them (auto-commit) against managed transactions
    (`execute_query`: BEGIN, RUN and PULL, COMMIT), alternated query by query in one process."""
    store: Any = memory.store
    autocommit = store._read

    def managed(text: str, values: dict[str, Any]) -> Any:
        return store._managed(text, values, store._neo4j.RoutingControl.READ)

    times: dict[tuple[str, str], list[float]] = defaultdict(list)
    for q in queries:
        for kind, read in (("managed", managed), ("auto-commit", autocommit)):
            store._read = read
            for label in LABELS:
                times[(label, kind)].append(timed(memory, label, q))
    store._read = autocommit
    for (label, kind), values in times.items():
        p50, p95 = pct(values, 0.5), pct(values, 0.95)
        print(f"[{name}] {label} with {kind} reads p50/p95 {p50:.1f}/{p95:.1f} ms")
        figures.add(f"{name}: {label} with {kind} reads p50", p50, "ms")
        figures.add(f"{name}: {label} with {kind} reads p95", p95, "ms")


def compare_queries(
    memory: GraphMemory, queries: Sequence[str], folder: Path, name: str, figures: Figures
) -> None:
    """The shipped Cypher files against other versions of some of them (`folder`/<layer>/
    <name>.<dialect>.cypher, the rest shipped), alternated query by query in one process:
    the latencies of both, and each changed file's total and server time."""
    store: Any = memory.store
    module: Any = sys.modules[type(store).__module__]
    shipped = module.load_query
    changed = sorted(
        f"{path.parent.name}/{path.name.split('.')[0]}"
        for path in folder.glob(f"*/*.{store.dialect}.cypher")
    )
    if not changed:
        raise SystemExit(f"--compare-queries: no */*.{store.dialect}.cypher file in {folder}")

    @functools.cache  # as load_query: no file read on the timed path
    def other(query: str, dialect: Any, *, search: bool = False) -> str:
        path = folder / f"{query}.{dialect}.cypher"
        if not path.is_file():
            return str(shipped(query, dialect, search=search))
        text = path.read_text(encoding="utf-8")
        return with_vector_search(text) if search and dialect == "neo4j" else text

    times: dict[tuple[str, str], list[float]] = defaultdict(list)
    timings = Timings(store)
    client: dict[tuple[str, str], list[float]] = defaultdict(list)
    server: dict[tuple[str, str], list[float]] = defaultdict(list)
    kinds = [("shipped", shipped), (str(folder), other)]
    for i, q in enumerate(queries):
        for label in LABELS:  # the question's embeddings cached before either is timed
            timed(memory, label, q)
        for kind, load in kinds if i % 2 == 0 else kinds[::-1]:
            setattr(module, "load_query", load)  # noqa: B010 (the files being compared)
            timings.on = True
            for label in LABELS:
                times[(label, kind)].append(timed(memory, label, q))
            timings.on = False
            for query in changed:
                client[(query, kind)].extend(timings.client.pop(query, []))
                server[(query, kind)].extend(timings.server.pop(query, []))
            timings.client.clear()
            timings.server.clear()
    setattr(module, "load_query", shipped)  # noqa: B010
    for (label, kind), values in times.items():
        p50, p95 = pct(values, 0.5), pct(values, 0.95)
        print(f"[{name}] {label} with {kind} queries p50/p95 {p50:.1f}/{p95:.1f} ms")
        figures.add(f"{name}: {label} with {kind} queries p50", p50, "ms")
        figures.add(f"{name}: {label} with {kind} queries p95", p95, "ms")
    for query in changed:
        for kind in ("shipped", str(folder)):
            spent, served = client[(query, kind)], server[(query, kind)]
            if not spent:
                continue  # not asked by a search or a recall
            print(
                f"[{name}] {query} ({kind}): {len(spent)} calls, client"
                f" {sum(spent) * 1000:.1f} ms (p50 {pct(spent, 0.5) * 1000:.1f}),"
                f" server {sum(served) * 1000:.1f} ms"
            )


def compare_touch(memory: GraphMemory, queries: Sequence[str], name: str, figures: Figures) -> None:
    """Hybrid searches whose access counts are written after the answer (what graphmem does)
    against searches that write them before returning, alternated query by query."""
    memo = memory.embedder
    assert isinstance(memo, QueryMemo)
    service = memory.conversation

    def after(q: str) -> None:
        service.search(q, space="scale", k=10)

    def before(q: str) -> None:
        hits = service.search(q, space="scale", k=10, touch=False).hits
        service.touch([h.turn_id for h in hits], space="scale")

    times: dict[str, list[float]] = defaultdict(list)
    for n, q in enumerate(queries):
        pair = [("after", after), ("before", before)]
        for kind, search in pair if n % 2 else pair[::-1]:
            memo.clear()
            start = time.perf_counter()
            search(q)
            times[kind].append((time.perf_counter() - start) * 1000)
    service.settle()
    for kind, values in times.items():
        p50, p95 = pct(values, 0.5), pct(values, 0.95)
        print(
            f"[{name}] search, access counts written {kind} the answer, p50/p95 "
            f"{p50:.1f}/{p95:.1f} ms"
        )
        figures.add(f"{name}: search, access counts written {kind} the answer p50", p50, "ms")
        figures.add(f"{name}: search, access counts written {kind} the answer p95", p95, "ms")


def neo4j_setting(text: str) -> tuple[str, str]:
    """KEY=VALUE of --neo4j-setting."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), value.strip()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=5000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--engine", choices=("both", "falkordb", "neo4j"), default="both")
    parser.add_argument(
        "--line",
        choices=sorted(LINES),
        default="5.26",
        help="the local Neo4j release line to time (2026 needs its build: `graphmem neo4j "
        "install --line 2026`, and a Java 21+)",
    )
    parser.add_argument(
        "--neo4j-setting",
        action="append",
        type=neo4j_setting,
        default=[],
        metavar="KEY=VALUE",
        help="a neo4j.conf setting for the local Neo4j, over local_neo4j.SERVER_SETTINGS "
        "(e.g. internal.dbms.index.vector.standard_merge_factor=50, Neo4j's default)",
    )
    parser.add_argument(
        "--compare-reads",
        action="store_true",
        help="on Neo4j, first time searches and recalls with the store's auto-commit reads "
        "and with managed read transactions, alternated query by query",
    )
    parser.add_argument(
        "--compare-touch",
        action="store_true",
        help="first time hybrid searches that write their access counts after the answer (as "
        "graphmem does) against ones that write them before returning, alternated query by "
        "query",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=0,
        help="instead of the per-query report: this many rounds of a search and a recall per "
        "question, each round's latencies and the CPU the server and this process spent",
    )
    parser.add_argument(
        "--compare-queries",
        type=Path,
        metavar="DIR",
        help="instead of the per-query report: time searches and recalls with the shipped "
        "Cypher files and with DIR's versions of some of them (DIR/<layer>/<name>.<dialect>"
        ".cypher), alternated query by query, and each changed file's client and server time",
    )
    add_json_out(parser)
    args = parser.parse_args(argv)
    figures = Figures("engine_reads")
    embedder = CachedEmbedder(NumpyEmbedder())
    with tempfile.TemporaryDirectory(prefix="graphmem-reads-") as tmp:
        home = Path(tmp)
        if args.engine in ("both", "falkordb"):
            falkor = EmbeddedServer(home / "falkordb-home", free_port())
            falkor.ensure_running()
            try:
                run(
                    "falkordb",
                    Settings(home=falkor.home, embedded_port=falkor.port, database="reads"),
                    embedder,
                    args,
                    figures,
                    falkor.status().pid,
                )
            finally:
                falkor.stop()
        if args.engine in ("both", "neo4j"):
            overrides = dict(args.neo4j_setting)
            line = LINES[args.line]
            neo4j = LocalNeo4j(home / line.folder, free_port(), settings=overrides, line=line)
            neo4j.start()
            try:
                settings = Settings(uri=neo4j.uri, password=neo4j.password())
                run("neo4j", settings, embedder, args, figures, neo4j.status().pid)
            finally:
                neo4j.stop()
    figures.write(args.json_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
