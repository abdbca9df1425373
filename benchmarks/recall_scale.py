"""Recall latency at scale: one space holding all four layers.

    python benchmarks/recall_scale.py [--turns 10000] [--facts 10000] [--insights 5000]
        [--trajectories 1000] [--queries 200] [--home DIR] [--torch-threads N] [--breakdown]
        [--reads]

Builds, in a private embedded FalkorDB, one space with
  --turns         synthetic conversation turns (benchmarks/conversation_synthetic.py),
                  through ConversationService.add_turns (all-MiniLM-L6-v2, offline extractor)
  --facts         facts of synthetic people (benchmarks/facts_locality.py), FactService
  --insights      insights over 2x as many recorded queries with evidence edges, loaded through
                  the portability queries (benchmarks/insights_retrieval.py: topic vectors, not
                  model embeddings, so which insights match is arbitrary; the work is not)
  --trajectories  ALFWorld expert runs (../shared/data/alfworld_dev) plus perturbed
                  exploration runs, ExperienceService.add
then times GraphMemory.recall (budget 2,000) for --queries distinct questions (a repeated text
would skip the model through the query memo): conversation questions, fact questions and task
goals in turn, after 5 other questions that warm the engine. The model is loaded and warmed up
first (model load is excluded); everything else a recall does before it returns is timed: the
query embedding, the four layers' reads, scoring and packing (the access write on the packed
turns and the token-usage write run after it returns, on a background thread, and overlap the
next query). The query embedding alone is timed too, as the reference. With --home DIR the
built graph is kept and reused by the next run. --torch-threads N sets the model's torch threads
(docs/recall.md has figures with 1 and with torch's default). --breakdown then times each layer
alone, one after the other, with the query already embedded. --reads times every named read
of the timed recalls (the background writes after each recall overlap the next and are not
reads): how often each query ran and what it cost there.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from figures import Figures, add_json_out  # noqa: E402

from benchmarks.conversation_synthetic import synthetic_queries, synthetic_turns  # noqa: E402
from benchmarks.facts_locality import person_facts  # noqa: E402
from benchmarks.insights_retrieval import build as insight_data  # noqa: E402

SPACE = "bench-recall"
DEFAULT_ALFWORLD = REPO.parent / "shared" / "data" / "alfworld_dev" / "trajectories.jsonl"


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def trajectories(path: Path, count: int, rng: random.Random) -> list[Any]:
    from graphmem_neo4j.experience.parsing import parse_file
    from graphmem_neo4j.experience.perturb import PERTURB_KINDS, perturb

    experts = parse_file(path, kind="expert")[:count]
    runs: list[Any] = list(experts)
    attempt = 0
    while len(runs) < count and attempt < 20 * count:
        expert = experts[attempt % len(experts)]
        attempt += 1
        made = perturb(expert, PERTURB_KINDS[attempt % len(PERTURB_KINDS)], rng)
        if made is not None:
            runs.append(made.perturbed)
    return runs


def build(memory: Any, args: argparse.Namespace, rng: random.Random) -> None:
    started = time.perf_counter()
    report = memory.conversation.add_turns(
        synthetic_turns(args.turns, seed=args.seed), space=SPACE, forget_every=0
    )
    print(f"turns: {report.turns_written} in {time.perf_counter() - started:.0f}s", flush=True)

    started = time.perf_counter()
    facts: list[dict[str, Any]] = []
    person = 0
    while len(facts) < args.facts:
        facts += person_facts(person, rng)
        person += 1
    written = memory.facts.add_facts(facts[: args.facts], space=SPACE)
    print(
        f"facts: {len(written.outcomes)} of {person} people in "
        f"{time.perf_counter() - started:.0f}s",
        flush=True,
    )

    started = time.perf_counter()
    data = insight_data(rng, 2 * args.insights, args.insights)
    for query, rows in (
        ("portability/node_query", data["queries"]),
        ("portability/node_insight", data["insights"]),
        ("portability/rel_similar_query", data["similar"]),
        ("portability/rel_positive", data["positive"]),
        ("portability/rel_negative", data["negative"]),
    ):
        memory.store.write_batches(query, rows, batch_size=1000, params={"space": SPACE})
    print(
        f"insights: {len(data['insights'])} over {len(data['queries'])} queries in "
        f"{time.perf_counter() - started:.0f}s",
        flush=True,
    )

    started = time.perf_counter()
    runs = trajectories(args.alfworld, args.trajectories, rng)
    added = memory.experience.add(runs, space=SPACE)
    print(
        f"trajectories: {added.trajectories} ({added.tasks} tasks) in "
        f"{time.perf_counter() - started:.0f}s",
        flush=True,
    )


def questions(args: argparse.Namespace, rng: random.Random) -> list[str]:
    from graphmem_neo4j.experience.parsing import parse_file

    chat = synthetic_queries(args.queries, seed=args.seed + 1)
    people = [f"Person {rng.randrange(args.facts // 5):06d}" for _ in range(args.queries)]
    facts = [
        rng.choice(
            (
                f"Where does {p} live?",
                f"Where does {p} work?",
                f"What does {p} drink in the evening?",
            )
        )
        for p in people
    ]
    goals = [t.task for t in parse_file(args.alfworld, kind="expert")]
    tasks = [rng.choice(goals) for _ in range(args.queries)]
    mixed = []
    for i in range(args.queries):
        mixed.append((chat, facts, tasks, chat)[i % 4][i])
    return mixed


def distinct_questions(args: argparse.Namespace, rng: random.Random, count: int) -> list[str]:
    """`count` different question texts in the mix of `questions`. The templated questions
    repeat, and GraphMemory's query memo would skip the model for a repeat; every timed
    recall must embed its query."""
    wanted = argparse.Namespace(**{**vars(args), "queries": 4 * count})
    unique = list(dict.fromkeys(questions(wanted, rng)))
    if len(unique) < count:
        raise SystemExit(f"only {len(unique)} distinct questions; ask for fewer --queries")
    return unique[:count]


def breakdown(memory: Any, asked: Sequence[str], budget: int) -> None:
    """Each layer alone, one after the other: recall(layers=[layer]) with the query's vector
    already in the memo, so a layer's time is its reads, scoring and packing (experience also
    embeds its own two texts, the task and its skeleton: that model call is in its time)."""
    from graphmem_neo4j.tokens import LAYERS

    alone: dict[str, list[float]] = defaultdict(list)
    for q in asked:
        memory.embedder.embed([q])
        for layer in LAYERS:
            started = time.perf_counter()
            memory.recall(q, space=SPACE, budget_tokens=budget, layers=[layer])
            alone[layer].append(time.perf_counter() - started)
        memory.recaller.settle()  # the background writes do not overlap the next query
    print("each layer alone, query embedded beforehand:")
    for layer in LAYERS:
        values = alone[layer]
        print(
            f"  {layer:<13} p50 {pct(values, 0.5) * 1000:6.1f} ms   "
            f"p95 {pct(values, 0.95) * 1000:6.1f} ms"
        )
    sums = [sum(alone[layer][i] for layer in LAYERS) for i in range(len(asked))]
    print(
        f"  sum of the four p50 {pct(sums, 0.5) * 1000:6.1f} ms   "
        f"p95 {pct(sums, 0.95) * 1000:6.1f} ms"
    )


class ReadTimes:
    """Times every named read the store answers while switched on (--reads): which queries a
    recall runs, how often, and what they cost under the recall's own concurrency."""

    def __init__(self, store: Any) -> None:
        self.times: dict[str, list[float]] = defaultdict(list)
        self.on = False
        inner = store.read

        def timed(query: str, params: Any = None) -> Any:
            started = time.perf_counter()
            try:
                return inner(query, params)
            finally:
                if self.on:
                    self.times[query].append(time.perf_counter() - started)

        store.read = timed

    def report(self, recalls: int) -> None:
        print(f"reads during the {recalls} timed recalls (count, total, p50, max):")
        for query, values in sorted(self.times.items(), key=lambda kv: -sum(kv[1])):
            print(
                f"  {query:<36} {len(values):5d} {sum(values) * 1000:8.1f} ms "
                f"{pct(values, 0.5) * 1000:6.1f} ms {max(values) * 1000:6.1f} ms"
            )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--insights", type=int, default=5_000)
    parser.add_argument("--trajectories", type=int, default=1_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--alfworld", type=Path, default=DEFAULT_ALFWORLD)
    parser.add_argument("--home", type=Path, help="keep the graph here and reuse it")
    parser.add_argument("--port", type=int, default=0, help="embedded server port (0: free)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--torch-threads",
        type=int,
        default=0,
        help="run the model on sentence-transformers with N torch threads (0, the default: "
        "graphmem's default numpy runtime)",
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="then time each layer alone (recall with one layer, the query already embedded)",
    )
    parser.add_argument(
        "--reads",
        action="store_true",
        help="also time each named read during the timed recalls (exact scans show here)",
    )
    add_json_out(parser)
    args = parser.parse_args(argv)
    figures = Figures("recall_scale")
    if args.torch_threads:
        import torch

        torch.set_num_threads(args.torch_threads)

    from graphmem_neo4j.embedder import NumpyEmbedder, SentenceTransformerEmbedder
    from graphmem_neo4j.memory import GraphMemory
    from graphmem_neo4j.settings import Settings
    from graphmem_neo4j.store.embedded import EmbeddedServer

    rng = random.Random(args.seed)
    embedder: Any = SentenceTransformerEmbedder() if args.torch_threads else NumpyEmbedder()
    loaded = time.perf_counter()
    embedder.embed(["warm up"])
    print(f"model load (excluded): {time.perf_counter() - loaded:.1f}s", flush=True)
    temporary = None
    if args.home is None:
        temporary = tempfile.TemporaryDirectory(prefix="graphmem-recall-scale-")
        home = Path(temporary.name)
    else:
        home = args.home
        home.mkdir(parents=True, exist_ok=True)
    port = args.port or None  # the Unix socket; TCP too only with --port
    server = EmbeddedServer(home, port)
    server.ensure_running()
    try:
        settings = Settings(home=home, embedded_port=port, database="recall_scale")
        with GraphMemory(settings, embedder=embedder) as memory:
            memory.init()
            if not any(row["id"] == SPACE for row in memory.spaces()):
                build(memory, args, rng)
            stats = memory.stats(SPACE)["nodes"]
            print(
                "space: "
                + ", ".join(
                    f"{stats.get(label, 0)} {label}"
                    for label in ("Turn", "MemoryUnit", "Insight", "Query", "Trajectory", "Task")
                ),
                flush=True,
            )
            pool = distinct_questions(args, rng, args.queries + 5)
            asked, warm = pool[: args.queries], pool[args.queries :]
            for q in warm:  # warm the engine caches and the layers' space statistics
                memory.recall(q, space=SPACE, budget_tokens=args.budget)
            reads = ReadTimes(memory.store) if args.reads else None
            total: list[float] = []
            embed: list[float] = []
            layers: dict[str, list[float]] = defaultdict(list)
            used: list[int] = []
            for q in asked:
                started = time.perf_counter()
                embedder.embed([q + " (reference)"])  # the model alone, uncached text
                embed.append(time.perf_counter() - started)
                if reads is not None:
                    reads.on = True
                started = time.perf_counter()
                result = memory.recall(q, space=SPACE, budget_tokens=args.budget)
                total.append(time.perf_counter() - started)
                if reads is not None:
                    reads.on = False
                used.append(result.tokens_used)
                for report in result.layers:
                    layers[report.layer].append(report.elapsed_ms / 1000)
            print(
                f"\nrecall (budget {args.budget}), {len(total)} distinct queries: "
                f"p50 {pct(total, 0.5) * 1000:.1f} ms   p95 {pct(total, 0.95) * 1000:.1f} ms   "
                f"mean context {statistics.mean(used):.0f} tokens"
            )
            figures.add("recall p50", pct(total, 0.5) * 1000, "ms")
            figures.add("recall p95", pct(total, 0.95) * 1000, "ms")
            print(
                f"query embedding alone: p50 {pct(embed, 0.5) * 1000:.1f} ms   "
                f"p95 {pct(embed, 0.95) * 1000:.1f} ms"
            )
            for layer, values in layers.items():
                print(
                    f"  {layer:<13} (in parallel) p50 {pct(values, 0.5) * 1000:6.1f} ms   "
                    f"p95 {pct(values, 0.95) * 1000:6.1f} ms"
                )
            if reads is not None:
                reads.report(len(total))
            if args.breakdown:
                breakdown(memory, asked, args.budget)
    finally:
        if temporary is not None:
            server.stop()
            temporary.cleanup()
        else:
            server.stop()
    figures.write(args.json_out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
