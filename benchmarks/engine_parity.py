"""The same workloads on each engine, side by side, in one run: the embedded FalkorDB, a local
Neo4j 5.26 and a local Neo4j 2026 (neo4j-local/, each started here on a free port in turn, data
in a temporary folder, kept running idle for the interleaved phase at the end).

    python benchmarks/engine_parity.py --data ../shared/data/locomo_dev
    python benchmarks/engine_parity.py --engines falkordb,neo4j-2026

--engines defaults to all three when the 2026 line is built (`graphmem neo4j install --line
2026`) and a Java 21+ is found, else to falkordb,neo4j with a line saying why; a neo4j-2026
asked for that cannot start here is skipped with one line and the others still run. Each
Neo4j column shows its ratio to FalkorDB's figure in the same run (p95 for latencies); the
--json-out figures are named per engine ("falkordb: ...", "neo4j: ...", "neo4j-2026: ...").

Per engine:
- batched node writes/s (UNWIND --batch rows per statement, merged on (space, id)), each pass
  --nodes new rows: the first pass on the fresh server, and the settled rate, that of the
  first pass within 10% of the pass before it (at most WRITE_PASSES passes): a fresh JVM's
  first writes run interpreted code, and a server that has run a while writes at the
  settled rate;
- LoCoMo dev evidence recall@10 of hybrid search (the three dev conversations, offline
  extractor, all-MiniLM-L6-v2), and whether both engines return the same top 10: a question
  whose lists differ counts as a tie when both lists hold the same scores, rank by rank (to
  1e-6), so that only the order among equal scores differs;
- conversation ingest turns/s on --turns synthetic turns (--embedder, by default the runtime
  graphmem runs, loaded first);
- hybrid search p50/p95 over that space (query embedding included, memo emptied per query),
  after --warmup untimed searches;
- recall p50/p95 over that space plus the example facts, tasks and trajectories, after
  --warmup untimed recalls;
- both again, "settled", once the server has run --settle seconds (15) past the last write
  and answered at least --settle-queries (400) untimed searches and as many recalls: right
  after a bulk ingestion Neo4j plans each query again once (its statistics drifted), 50-80 ms
  of server time each, and a fresh JVM compiles its hot code over its first several hundred
  queries.
Then, with every engine settled, the interleaved phase (--rounds, 3): each of the --queries
searches, then recalls, goes to every engine back to back, the engine that goes first rotating
with the query. One engine's own phases run at whatever speed the machine has then (a 25%
swing between runs of the same code, docs/neo4j.md); here every engine meets the same speed, so
these ratios are the ones to compare: the pooled p95 over FalkorDB's, each round's ratio, and
a 95% interval from a paired bootstrap over the (round, query) pairs.
Both engines use the same embedder instance, so differences are the engines'.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import random
import socket
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from conversation_synthetic import synthetic_queries, synthetic_turns  # noqa: E402
from figures import Figures, add_json_out  # noqa: E402

from graphmem_neo4j.conversation.readers import read_locomo  # noqa: E402
from graphmem_neo4j.embedder import make_embedder  # noqa: E402
from graphmem_neo4j.insights.parsing import read_tasks  # noqa: E402
from graphmem_neo4j.memory import GraphMemory  # noqa: E402
from graphmem_neo4j.recall.cache import QueryMemo  # noqa: E402
from graphmem_neo4j.settings import Settings  # noqa: E402
from graphmem_neo4j.store.embedded import EmbeddedServer  # noqa: E402
from graphmem_neo4j.store.local_neo4j import (  # noqa: E402
    LINES,
    LocalNeo4j,
    find_java,
    is_built,
    unavailable_reason,
)

EXAMPLES = REPO / "examples"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def timed(calls: Sequence[Callable[[], Any]], memo: QueryMemo) -> list[float]:
    times = []
    for call in calls:
        memo.clear()
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return times


WRITE_PASSES = 6


def node_writes(memory: GraphMemory, nodes: int, batch: int) -> tuple[float, float]:
    """Nodes/s of the first pass of `nodes` new nodes, and of the first pass within 10% of the
    one before it (or the last of WRITE_PASSES)."""
    memory.init()
    rates: list[float] = []
    for run in range(WRITE_PASSES):
        rows = [{"id": f"pass{run}-{i}", "props": {"note": f"node {i}"}} for i in range(nodes)]
        start = time.perf_counter()
        memory.store.write_batches(
            "portability/node_session", rows, batch_size=batch, params={"space": "bench-writes"}
        )
        rates.append(nodes / (time.perf_counter() - start))
        if len(rates) > 1 and abs(rates[-1] - rates[-2]) <= 0.1 * rates[-2]:
            break
    return rates[0], rates[-1]


Top = list[tuple[str, float]]


def top_difference(a: Top, b: Top, tolerance: float = 1e-6) -> str:
    """ "same", "tie" (the same scores rank by rank, only the order among equal scores or
    which of several equal last ones made the cut differs) or "different"."""
    if [i for i, _ in a] == [i for i, _ in b]:
        return "same"
    if len(a) == len(b) and all(
        abs(x - y) <= tolerance for (_, x), (_, y) in zip(a, b, strict=True)
    ):
        return "tie"
    return "different"


def locomo(memory: GraphMemory, data: Path) -> tuple[float, int, dict[str, Top]]:
    """Mean evidence recall@10 over every question, and each question's top 10."""
    questions: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in (data / "qa.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        questions[row["sample_id"]].append(row)
    scores: list[float] = []
    tops: dict[str, Top] = {}
    for space, turns in read_locomo(data / "locomo_dev.json"):
        memory.conversation.add_turns(turns, space=space, forget_every=0)
        for i, q in enumerate(questions[space]):
            hits = memory.conversation.search(q["question"], space=space, k=10).hits
            ids = [h.turn_id for h in hits]
            tops[f"{space}#{i}"] = [(h.turn_id, h.score) for h in hits]
            evidence = set(q["evidence"])
            if evidence:
                scores.append(len(evidence & set(ids)) / len(evidence))
    return sum(scores) / len(scores), len(scores), tops


def add_examples(memory: GraphMemory, space: str) -> None:
    memory.facts.add_file(EXAMPLES / "facts.jsonl", space=space)
    memory.facts.add_file(EXAMPLES / "facts_updates.jsonl", space=space)
    for name in ("tasks.jsonl", "tasks_more.jsonl"):
        tasks = read_tasks(EXAMPLES / name)
        memory.insights.record_tasks(
            tasks.tasks, space=space, source=tasks.source, lines=tasks.lines, learn=True
        )
    experience = EXAMPLES / "experience"
    memory.experience.add_file(experience / "expert.jsonl", kind="expert", space=space)
    memory.experience.add_file(experience / "exploration.jsonl", kind="exploration", space=space)


def run_engine(name: str, memory: GraphMemory, args: argparse.Namespace) -> dict[str, Any]:
    figures: dict[str, Any] = {"engine": name}
    memo = memory.embedder
    assert isinstance(memo, QueryMemo)
    figures["writes_first"], figures["writes"] = node_writes(memory, args.nodes, args.batch)
    print(
        f"[{name}] batched node writes: {figures['writes_first']:,.0f} nodes/s on the fresh "
        f"server, {figures['writes']:,.0f} nodes/s settled",
        flush=True,
    )
    if args.data is not None:
        r10, n, tops = locomo(memory, args.data)
        figures["locomo_r10"], figures["locomo_n"], figures["tops"] = r10, n, tops
        print(f"[{name}] LoCoMo dev hybrid R@10 {r10:.3f} (n={n})", flush=True)
    if args.turns > 0:
        turns = synthetic_turns(args.turns)
        start = time.perf_counter()
        for i in range(0, len(turns), 2000):
            memory.conversation.add_turns(turns[i : i + 2000], space="scale", forget_every=0)
        figures["ingest"] = len(turns) / (time.perf_counter() - start)
        print(f"[{name}] ingest {len(turns)} turns: {figures['ingest']:.1f} turns/s", flush=True)
        queries = synthetic_queries(args.queries + args.warmup)
        queries, warmup = queries[: args.queries], queries[args.queries :]
        for q in warmup:
            memory.conversation.search(q, space="scale", k=10)
        figures["search"] = timed_searches(memory, queries, memo)
        add_examples(memory, "scale")
        written = time.perf_counter()
        for q in warmup:
            memory.recall(q, space="scale", budget_tokens=2000)
        figures["recall"] = timed_recalls(memory, queries, memo)
        # The same again once the server has run --settle seconds past the last write,
        # untimed queries meanwhile: Neo4j plans a query again when the statistics it was
        # planned on have drifted, at most every 10 s (docs/neo4j.md, "Plans made again").
        # And at least --settle-queries untimed searches and recalls: Neo4j's JVM compiles
        # its hot code with C2 over its first several hundred queries (docs/neo4j.md,
        # "A warm JVM").
        for done, q in enumerate(itertools.cycle(warmup or queries)):
            if time.perf_counter() - written >= args.settle and done >= args.settle_queries:
                break
            memory.conversation.search(q, space="scale", k=10)
            memory.recall(q, space="scale", budget_tokens=2000)
        figures["search_settled"] = timed_searches(memory, queries, memo)
        figures["recall_settled"] = timed_recalls(memory, queries, memo)
        for key, label in PHASES:
            print(
                f"[{name}] {label.format(turns=args.turns)} p50/p95 "
                f"{figures[key][0]:.1f}/{figures[key][1]:.1f} ms",
                flush=True,
            )
    return figures


Latency = tuple[float, float]
"""p50 and p95 in ms."""

PHASES = (
    ("search", "hybrid search at {turns} turns"),
    ("recall", "recall"),
    ("search_settled", "hybrid search at {turns} turns, settled"),
    ("recall_settled", "recall, settled"),
)
"""Latency figures: right after ingestion (and --warmup untimed calls), and once the server
has run --settle seconds past the last write."""


def timed_searches(memory: GraphMemory, queries: Sequence[str], memo: QueryMemo) -> Latency:
    calls = [partial(memory.conversation.search, q, space="scale", k=10) for q in queries]
    times = timed(calls, memo)
    return pct(times, 0.5), pct(times, 0.95)


def timed_recalls(memory: GraphMemory, queries: Sequence[str], memo: QueryMemo) -> Latency:
    calls = [partial(memory.recall, q, space="scale", budget_tokens=2000) for q in queries]
    times = timed(calls, memo)
    return pct(times, 0.5), pct(times, 0.95)


KINDS = {"search": "hybrid search", "recall": "recall"}
"""What the interleaved phase times, and the label of each in the table and the figures."""


def interleaved(
    memories: dict[str, GraphMemory], queries: Sequence[str], rounds: int
) -> dict[str, dict[str, list[list[float]]]]:
    """kind → engine → the ms of each query, per round. Each query goes to every engine back
    to back (which engine goes first rotates with the query), so a machine that runs faster
    or slower for a while does so for every engine alike."""
    names = list(memories)
    times = {kind: {name: [[] for _ in range(rounds)] for name in names} for kind in KINDS}
    for r in range(rounds):
        for i, query in enumerate(queries):
            order = names[i % len(names) :] + names[: i % len(names)]
            for kind in KINDS:
                for name in order:
                    memory = memories[name]
                    call = (
                        partial(memory.conversation.search, query, space="scale", k=10)
                        if kind == "search"
                        else partial(memory.recall, query, space="scale", budget_tokens=2000)
                    )
                    memo = memory.embedder
                    assert isinstance(memo, QueryMemo)
                    times[kind][name][r].extend(timed([call], memo))
    return times


def paired_ratio(
    mine: list[list[float]], base: list[list[float]], resamples: int = 2000
) -> dict[str, Any]:
    """The p95 of `mine` over the p95 of `base`, pooled over rounds; each round's ratio; and
    a 95% interval by a paired bootstrap over the (round, query) pairs."""
    pairs = [(m, b) for ms, bs in zip(mine, base, strict=True) for m, b in zip(ms, bs, strict=True)]
    rng = random.Random(0)
    boot = []
    for _ in range(resamples):
        sample = [pairs[rng.randrange(len(pairs))] for _ in pairs]
        boot.append(pct([m for m, _ in sample], 0.95) / pct([b for _, b in sample], 0.95))
    p95 = pct([m for m, _ in pairs], 0.95)
    return {
        "p95": p95,
        "ratio": p95 / pct([b for _, b in pairs], 0.95),
        "rounds": [pct(ms, 0.95) / pct(bs, 0.95) for ms, bs in zip(mine, base, strict=True)],
        "interval": (pct(boot, 0.025), pct(boot, 0.975)),
    }


def print_interleaved(times: dict[str, dict[str, list[list[float]]]]) -> dict[str, Any]:
    """A row per kind: each engine's pooled p95 and, for Neo4j, its ratio to FalkorDB's with
    the rounds' ratios and the interval. Returns the ratios by "kind/engine"."""
    ratios: dict[str, Any] = {}
    for kind in KINDS:
        by_engine = times[kind]
        base = by_engine.get("falkordb")
        cells = []
        for name, rounds in by_engine.items():
            pooled = [t for round_times in rounds for t in round_times]
            cell = f"{pct(pooled, 0.5):.1f} / {pct(pooled, 0.95):.1f} ms"
            if base is not None and name != "falkordb":
                r = ratios[f"{kind}/{name}"] = paired_ratio(rounds, base)
                low, high = r["interval"]
                each = ", ".join(f"{x:.2f}" for x in r["rounds"])
                cell += f" ({r['ratio']:.2f}×; rounds {each}; 95% CI {low:.2f}–{high:.2f})"
            cells.append(cell)
        print(f"| {KINDS[kind]} p50 / p95, interleaved | " + " | ".join(cells) + " |")
    return ratios


ENGINES = {"falkordb": "FalkorDB (embedded)", "neo4j": "Neo4j 5.26 (local)"}
ENGINES["neo4j-2026"] = f"Neo4j {LINES['2026'].version} (local)"


def default_engines() -> str:
    """FalkorDB and Neo4j 5.26, and Neo4j 2026 when its build and a Java for it are here."""
    line = LINES["2026"]
    if is_built(line=line) and find_java(line) is not None:
        return "falkordb,neo4j,neo4j-2026"
    return "falkordb,neo4j"


def start_server(engine: str, home: Path) -> tuple[Settings, Callable[[], object]]:
    """Start `engine`'s server in `home`: its settings and how to stop it."""
    if engine == "falkordb":
        falkor = EmbeddedServer(home / "falkordb-home", free_port())
        falkor.ensure_running()
        settings = Settings(home=falkor.home, embedded_port=falkor.port, database="parity")
        return settings, falkor.stop
    line = LINES["2026" if engine == "neo4j-2026" else "5.26"]
    neo4j = LocalNeo4j(home / line.folder, free_port(), line=line)
    neo4j.start()
    return Settings(uri=neo4j.uri, password=neo4j.password()), neo4j.stop


def print_table(results: list[dict[str, Any]], args: argparse.Namespace) -> None:
    """One column per engine; each Neo4j column's ratio to FalkorDB's where FalkorDB ran."""
    base = results[0] if results[0]["engine"] == "falkordb" else None

    def ratio(r: dict[str, Any], value: float, of: float, how: str = "") -> str:
        if base is None or r is base or of <= 0:
            return ""
        return f" ({value / of:.2f}×{how})"

    def row(label: str, cells: list[str]) -> None:
        print(f"| {label} | " + " | ".join(cells) + " |")

    print()
    row("figure", [ENGINES[r["engine"]] for r in results])
    print("|---|" + "---|" * len(results))
    b = base or results[0]
    row(
        "batched node writes/s, first pass on a fresh server",
        [
            f"{r['writes_first']:,.0f}" + ratio(r, r["writes_first"], b["writes_first"])
            for r in results
        ],
    )
    row(
        "batched node writes/s, settled",
        [f"{r['writes']:,.0f}" + ratio(r, r["writes"], b["writes"]) for r in results],
    )
    if args.turns > 0:
        row(
            f"ingest, {args.turns} synthetic turns",
            [f"{r['ingest']:.1f} turns/s" + ratio(r, r["ingest"], b["ingest"]) for r in results],
        )
        for key, label in PHASES:
            row(
                label.format(turns=args.turns) + " p50 / p95",
                [
                    f"{r[key][0]:.1f} / {r[key][1]:.1f} ms"
                    + ratio(r, r[key][1], b[key][1], " at p95")
                    for r in results
                ],
            )
    if "locomo_r10" in b:
        row(
            f"LoCoMo dev R@10, hybrid (n={b['locomo_n']})",
            [f"{r['locomo_r10']:.3f}" for r in results],
        )
        if base is not None:
            row(
                "same top 10 as FalkorDB (+ differ only among equal scores)",
                [
                    "{same}/{n} (+{tie})".format(**r["vs_falkordb"]) if r is not base else ""
                    for r in results
                ],
            )
            for r in results[1:]:
                for q in r["vs_falkordb"]["different"]:
                    print(f"  {r['engine']} differs: {q}\n    falkordb {base['tops'][q]}")
                    print(f"    {r['engine']} {r['tops'][q]}")
    if base is not None:
        print("(×: each Neo4j figure over FalkorDB's in this run)")


def compare_tops(base: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    kinds = {q: top_difference(base["tops"][q], result["tops"][q]) for q in base["tops"]}
    return {
        "same": sum(v == "same" for v in kinds.values()),
        "tie": sum(v == "tie" for v in kinds.values()),
        "n": len(kinds),
        "different": [q for q, kind in kinds.items() if kind == "different"],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/locomo_dev")
    parser.add_argument("--no-locomo", action="store_true")
    parser.add_argument(
        "--turns", type=int, default=10_000, help="synthetic turns (0: no ingest/search/recall)"
    )
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--settle",
        type=float,
        default=15.0,
        help="seconds past the last write before the settled latencies are timed (untimed "
        "queries meanwhile; Neo4j plans drifted queries again at most every 10 s)",
    )
    parser.add_argument(
        "--settle-queries",
        type=int,
        default=400,
        help="untimed searches and recalls (each) before the settled latencies are timed, "
        "at least: a JVM compiles its hot code over its first several hundred queries",
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=20,
        help="untimed searches (and recalls) before the timed ones, on every engine: a "
        "server runs warm; the first commands after a start are cli_latency.py's figure",
    )
    parser.add_argument(
        "--embedder",
        choices=("auto", "numpy", "sentence-transformers"),
        default="auto",
        help="the embedding runtime, as GRAPHMEM_EMBEDDER (default auto: what graphmem runs "
        "by default, numpy on one thread for the default model)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="rounds of the interleaved phase: once every engine has run its own phases, "
        "each of the --queries searches and recalls goes to every engine back to back, so "
        "that the ratios compare engines under the same machine speed (0: no such phase; "
        "each server is then stopped before the next starts)",
    )
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=1000, help="rows per UNWIND statement")
    parser.add_argument(
        "--engines",
        default=None,
        help="of falkordb,neo4j,neo4j-2026 (default: all three when the 2026 line is built "
        "and a Java 21+ is found, else falkordb,neo4j)",
    )
    add_json_out(parser)
    args = parser.parse_args(argv)
    engines = (args.engines or default_engines()).split(",")
    unknown = [e for e in engines if e not in ENGINES]
    if unknown:
        parser.error(f"unknown engine(s) {', '.join(unknown)}: choose of {', '.join(ENGINES)}")
    if args.engines is None and "neo4j-2026" not in engines:
        reason = unavailable_reason(line=LINES["2026"]) or "not built"
        print(f"neo4j-2026 left out ({reason}; `graphmem neo4j install --line 2026` builds it)")
    figures = Figures("engine_parity")
    if args.no_locomo:
        args.data = None
    elif not (args.data / "qa.jsonl").is_file() or not (args.data / "locomo_dev.json").is_file():
        parser.error(f"no LoCoMo dev data (qa.jsonl, locomo_dev.json) in {args.data}: --data")
    embedder = make_embedder(Settings(embedder=args.embedder))
    embedder.embed(["warm up"])
    print(f"embedder: {type(embedder).__name__} ({args.embedder})", flush=True)
    results = []
    keep = args.rounds > 0 and args.turns > 0
    memories: dict[str, GraphMemory] = {}
    times: dict[str, dict[str, list[list[float]]]] = {}
    with (
        tempfile.TemporaryDirectory(prefix="graphmem-parity-") as tmp,
        contextlib.ExitStack() as kept,
    ):
        for engine in engines:
            missing = unavailable_reason(line=LINES["2026"]) if engine == "neo4j-2026" else None
            if missing:
                print(f"[{engine}] skipped: {missing}", flush=True)
                continue
            # Each engine's own phases run while the servers before it idle (kept for the
            # interleaved phase) or are stopped (--rounds 0).
            with contextlib.ExitStack() as server:
                settings, stop = start_server(engine, Path(tmp))
                server.callback(stop)
                memory = server.enter_context(GraphMemory(settings, embedder=embedder))
                results.append(run_engine(engine, memory, args))
                if keep:
                    memories[engine] = memory
                    kept.enter_context(server.pop_all())
        if keep and len(memories) > 1:
            print(f"interleaved: {args.rounds} rounds of {args.queries} queries", flush=True)
            times = interleaved(memories, synthetic_queries(args.queries), args.rounds)
    if not results:
        return 1
    base = results[0] if results[0]["engine"] == "falkordb" else None
    if base is not None and "tops" in base:
        for result in results[1:]:
            result["vs_falkordb"] = compare_tops(base, result)
    print_table(results, args)
    paired = print_interleaved(times) if times else {}
    for result in results:
        engine = result["engine"]
        figures.add(f"{engine}: batched node writes, first pass", result["writes_first"], "nodes/s")
        figures.add(f"{engine}: batched node writes, settled", result["writes"], "nodes/s")
        if args.turns > 0:
            turns = f"{args.turns} synthetic turns"
            figures.add(f"{engine}: ingest, {turns}", result["ingest"], "turns/s")
            for key, template in PHASES:
                label = template.format(turns=args.turns)
                figures.add(f"{engine}: {label} p50", result[key][0], "ms")
                figures.add(f"{engine}: {label} p95", result[key][1], "ms")
                if base is not None and result is not base:
                    figures.add(
                        f"{engine}: {label} p95 over falkordb's", result[key][1] / base[key][1]
                    )
            if base is not None and result is not base:
                figures.add(f"{engine}: ingest over falkordb's", result["ingest"] / base["ingest"])
        if "locomo_r10" in result:
            figures.add(f"{engine}: LoCoMo dev R@10, hybrid", result["locomo_r10"])
        if "vs_falkordb" in result:
            same = result["vs_falkordb"]
            figures.add(f"{engine}: questions with falkordb's top 10", same["same"], "questions")
            figures.add(
                f"{engine}: questions differing from falkordb's only among equal scores",
                same["tie"],
                "questions",
            )
    for key, r in paired.items():
        kind, engine = key.split("/")
        label = KINDS[kind]
        figures.add(f"{engine}: {label} p95, interleaved", r["p95"], "ms")
        figures.add(f"{engine}: {label} p95 over falkordb's, interleaved", r["ratio"])
        figures.add(f"{engine}: {label} p95 over falkordb's, interleaved, CI low", r["interval"][0])
        figures.add(
            f"{engine}: {label} p95 over falkordb's, interleaved, CI high", r["interval"][1]
        )
    for kind in times:
        if "falkordb" in times[kind]:
            pooled = [t for r in times[kind]["falkordb"] for t in r]
            figures.add(f"falkordb: {KINDS[kind]} p95, interleaved", pct(pooled, 0.95), "ms")
    figures.write(args.json_out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
