"""The same workloads on both engines, side by side, in one run: the embedded FalkorDB and a
local Neo4j 5.26 (neo4j-local/, started here on free ports, data in a temporary folder).

    python benchmarks/engine_parity.py --data ../shared/data/locomo_dev

Per engine:
- batched node writes/s (UNWIND --batch rows per statement, merged on (space, id)), timed on
  a second pass of --nodes new rows, after a first pass warmed the server (a fresh JVM's
  first writes run interpreted code and grow its heap);
- LoCoMo dev evidence recall@10 of hybrid search (the three dev conversations, offline
  extractor, all-MiniLM-L6-v2), and whether both engines return the same top 10: a question
  whose lists differ counts as a tie when both lists hold the same scores, rank by rank (to
  1e-6), so that only the order among equal scores differs;
- conversation ingest turns/s on --turns synthetic turns (default embedder, loaded first);
- hybrid search p50/p95 over that space (query embedding included, memo emptied per query);
- recall p50/p95 over that space plus the example facts, tasks and trajectories.
Both engines use the same embedder instance, so differences are the engines'.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from conversation_synthetic import synthetic_queries, synthetic_turns  # noqa: E402
from figures import Figures, add_json_out  # noqa: E402

from graphmem_neo4j.conversation.readers import read_locomo  # noqa: E402
from graphmem_neo4j.embedder import SentenceTransformerEmbedder  # noqa: E402
from graphmem_neo4j.insights.parsing import read_tasks  # noqa: E402
from graphmem_neo4j.memory import GraphMemory  # noqa: E402
from graphmem_neo4j.recall.cache import QueryMemo  # noqa: E402
from graphmem_neo4j.settings import Settings  # noqa: E402
from graphmem_neo4j.store.embedded import EmbeddedServer  # noqa: E402
from graphmem_neo4j.store.local_neo4j import LocalNeo4j  # noqa: E402

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


def node_writes(memory: GraphMemory, nodes: int, batch: int) -> float:
    """Nodes/s of the second of two passes, each writing `nodes` new nodes."""
    memory.init()
    rate = 0.0
    for run in ("warm-up", "timed"):
        rows = [{"id": f"{run}-{i}", "props": {"note": f"node {i}"}} for i in range(nodes)]
        start = time.perf_counter()
        memory.store.write_batches(
            "portability/node_session", rows, batch_size=batch, params={"space": "bench-writes"}
        )
        rate = nodes / (time.perf_counter() - start)
    return rate


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


def run_engine(
    name: str, settings: Settings, embedder: Any, args: argparse.Namespace
) -> dict[str, Any]:
    figures: dict[str, Any] = {"engine": name}
    with GraphMemory(settings, embedder=embedder) as memory:
        memo = memory.embedder
        assert isinstance(memo, QueryMemo)
        figures["writes"] = node_writes(memory, args.nodes, args.batch)
        print(f"[{name}] batched node writes: {figures['writes']:,.0f} nodes/s", flush=True)
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
            print(
                f"[{name}] ingest {len(turns)} turns: {figures['ingest']:.1f} turns/s", flush=True
            )
            queries = synthetic_queries(args.queries)
            search = timed(
                [lambda q=q: memory.conversation.search(q, space="scale", k=10) for q in queries],
                memo,
            )
            figures["search"] = (pct(search, 0.5), pct(search, 0.95))
            add_examples(memory, "scale")
            recall = timed(
                [lambda q=q: memory.recall(q, space="scale", budget_tokens=2000) for q in queries],
                memo,
            )
            figures["recall"] = (pct(recall, 0.5), pct(recall, 0.95))
            print(
                f"[{name}] hybrid search p50/p95 "
                f"{figures['search'][0]:.1f}/{figures['search'][1]:.1f} ms, recall p50/p95 "
                f"{figures['recall'][0]:.1f}/{figures['recall'][1]:.1f} ms",
                flush=True,
            )
    return figures


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
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=1000, help="rows per UNWIND statement")
    add_json_out(parser)
    args = parser.parse_args(argv)
    figures = Figures("engine_parity")
    if args.no_locomo:
        args.data = None
    embedder = SentenceTransformerEmbedder()
    embedder.embed(["warm up"])
    results = []
    with tempfile.TemporaryDirectory(prefix="graphmem-parity-") as tmp:
        home = Path(tmp)
        falkor = EmbeddedServer(home / "falkordb-home", free_port())
        falkor.ensure_running()
        neo4j = LocalNeo4j(home / "neo4j", free_port())
        neo4j.start()
        try:
            results.append(
                run_engine(
                    "falkordb",
                    Settings(home=falkor.home, embedded_port=falkor.port, database="parity"),
                    embedder,
                    args,
                )
            )
            results.append(
                run_engine(
                    "neo4j", Settings(uri=neo4j.uri, password=neo4j.password()), embedder, args
                )
            )
        finally:
            neo4j.stop()
            falkor.stop()
    a, b = results
    print("\n| figure | FalkorDB (embedded) | Neo4j 5.26 (local) |")
    print("|---|---|---|")
    print(f"| batched node writes/s | {a['writes']:,.0f} | {b['writes']:,.0f} |")
    if "locomo_r10" in a:
        kinds = {q: top_difference(a["tops"][q], b["tops"][q]) for q in a["tops"]}
        count = {kind: sum(v == kind for v in kinds.values()) for kind in ("same", "tie")}
        print(
            f"| LoCoMo dev R@10, hybrid (n={a['locomo_n']}) | {a['locomo_r10']:.3f} | "
            f"{b['locomo_r10']:.3f} |"
        )
        print(
            f"| same top 10 on both | {count['same']}/{len(kinds)} questions, "
            f"{count['tie']} more differ only among equal scores | |"
        )
        for q, kind in kinds.items():
            if kind == "different":
                print(f"  differs: {q}\n    falkordb {a['tops'][q]}\n    neo4j    {b['tops'][q]}")
    if args.turns > 0:
        print(
            f"| ingest, {args.turns} synthetic turns | {a['ingest']:.1f} turns/s | "
            f"{b['ingest']:.1f} turns/s |"
        )
        for key, label in (
            ("search", f"hybrid search at {args.turns} turns"),
            ("recall", "recall"),
        ):
            print(
                f"| {label} p50 / p95 | {a[key][0]:.1f} / {a[key][1]:.1f} ms | "
                f"{b[key][0]:.1f} / {b[key][1]:.1f} ms |"
            )
    for engine, result in (("falkordb", a), ("neo4j", b)):
        figures.add(f"{engine}: batched node writes", result["writes"], "nodes/s")
        if args.turns > 0:
            turns = f"{args.turns} synthetic turns"
            figures.add(f"{engine}: ingest, {turns}", result["ingest"], "turns/s")
            figures.add(
                f"{engine}: hybrid search p95 at {args.turns} turns", result["search"][1], "ms"
            )
            figures.add(f"{engine}: recall p95", result["recall"][1], "ms")
        if "locomo_r10" in result:
            figures.add(f"{engine}: LoCoMo dev R@10, hybrid", result["locomo_r10"])
    figures.write(args.json_out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
