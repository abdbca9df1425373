"""Building the experience memory from ALFWorld expert trajectories, and cross-task retrieval
for held-out goals against BM25 and plain-embedding baselines computed in the same run.

    python benchmarks/experience_memory.py [--data ../shared/data/alfworld_dev/trajectories.jsonl]
        [--embedder minilm|hash] [--holdout-every 5]

Runs on a private embedded FalkorDB (a temporary directory, a free port) with no LLM.

(a) Build: `ExperienceService.add` of every trajectory into an empty space (graphs, task
    embeddings, template insights, cross-task matching and edges), timed; then the same add
    again (idempotent: nothing new is stored).
(b) Retrieval: every Nth trajectory is held out; the others are added to a fresh space. For
    each held-out goal (its task text, and separately its first human-written goal), the top-1
    retrieved task counts as right when one of that task's stored runs has the held-out run's
    task_type, and its pddl_params match when one of them has the same pddl_params.
    Baselines: BM25 over the stored task texts, and the query embedding alone (the paper's
    plain top-K by embedding, without our skeleton term).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import socket
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from figures import Figures, add_json_out

from graphmem_neo4j.embedder import Embedder, HashEmbedder, SentenceTransformerEmbedder
from graphmem_neo4j.experience.models import Trajectory
from graphmem_neo4j.experience.normalize import normalize_task
from graphmem_neo4j.experience.parsing import parse_file
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store.embedded import EmbeddedServer

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "alfworld_dev" / "trajectories.jsonl"
_WORD = re.compile(r"[a-z0-9]+")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class BM25:
    """Okapi BM25 (k1 = 1.2, b = 0.75) over short documents."""

    def __init__(self, docs: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.docs = [_WORD.findall(d.lower()) for d in docs]
        self.k1, self.b = k1, b
        self.avg = sum(map(len, self.docs)) / len(self.docs)
        df = Counter(w for d in self.docs for w in set(d))
        n = len(self.docs)
        self.idf = {w: math.log(1 + (n - c + 0.5) / (c + 0.5)) for w, c in df.items()}
        self.tf = [Counter(d) for d in self.docs]

    def best(self, query: str) -> int:
        words = _WORD.findall(query.lower())

        def score(i: int) -> float:
            tf, length = self.tf[i], len(self.docs[i])
            norm = self.k1 * (1 - self.b + self.b * length / self.avg)
            return sum(
                self.idf[w] * tf[w] * (self.k1 + 1) / (tf[w] + norm) for w in words if w in tf
            )

        return max(range(len(self.docs)), key=lambda i: (score(i), -i))


def build(memory: GraphMemory, trajectories: list[Trajectory], figures: Figures) -> None:
    space = f"bench-{uuid.uuid4().hex[:8]}"
    phases: dict[str, float] = {}
    last = [time.perf_counter()]

    def on_progress(phase: str, n: int, total: int) -> None:
        now = time.perf_counter()
        phases[phase] = phases.get(phase, 0.0) + now - last[0]
        last[0] = now

    started = time.perf_counter()
    report = memory.experience.add(trajectories, space=space, on_progress=on_progress)
    took = time.perf_counter() - started
    again = memory.experience.add(trajectories, space=space)
    stats = memory.stats(space)
    print(
        f"(a) build: {report.trajectories} trajectories → {report.tasks} tasks, "
        f"{report.actions} actions, {report.edges} edges, {report.similar_edges} cross-task "
        f"edges in {took:.1f} s"
    )
    print(
        "    time up to the end of each phase's reports (storing includes embedding): "
        + ", ".join(f"{k} {v:.1f} s" for k, v in phases.items())
    )
    print(
        f"    second add of the same file: {again.unchanged} unchanged, {again.added} added, "
        f"{again.seconds:.1f} s; graph holds {stats['total_nodes']} nodes, "
        f"{stats['total_relationships']} relationships"
    )
    figures.add(f"build {report.trajectories} trajectories", took, "s")


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def retrieval(
    memory: GraphMemory,
    embedder: Embedder,
    trajectories: list[Trajectory],
    every: int,
    figures: Figures,
) -> None:
    held = [t for i, t in enumerate(trajectories) if i % every == 0]
    stored = [t for i, t in enumerate(trajectories) if i % every != 0]
    space = f"bench-{uuid.uuid4().hex[:8]}"
    memory.experience.add(stored, space=space)
    types: dict[str, set[str]] = defaultdict(set)
    pddl: dict[str, set[str]] = defaultdict(set)
    for t in stored:
        text = normalize_task(t.task)
        types[text].add(str(t.metadata["task_type"]))
        pddl[text].add(json.dumps(t.metadata.get("pddl_params"), sort_keys=True))
    texts = sorted(types)
    bm25 = BM25(texts)
    text_vectors = embedder.embed(texts)
    ambiguous = sum(len(v) > 1 for v in types.values())
    print(
        f"\n(b) cross-task retrieval: {len(stored)} runs stored ({len(texts)} distinct task "
        f"texts, {ambiguous} with more than one task_type), {len(held)} held out"
    )

    def plain(query: str) -> str:
        q = embedder.embed([normalize_task(query)])[0]
        return texts[max(range(len(texts)), key=lambda i: cosine(q, text_vectors[i]))]

    latencies: list[float] = []

    def ours(query: str) -> str:
        started = time.perf_counter()
        guidance = memory.experience.retrieve(query, space=space, k=1, t=3)
        latencies.append(time.perf_counter() - started)
        return guidance.tasks[0].text if guidance.tasks else ""  # nothing similar: a miss

    methods: dict[str, Callable[[str], str]] = {
        "graphmem (task + skeleton)": ours,
        "BM25 over task texts": lambda q: texts[bm25.best(q)],
        "embedding of the text alone": plain,
    }
    goals: dict[str, Callable[[Trajectory], str]] = {"task text": lambda t: t.task}
    if all(t.metadata.get("human_goal_descs") for t in held):
        goals["human goal"] = lambda t: str(t.metadata["human_goal_descs"][0])
    print(f"    {'query':<12}{'method':<30}{'task_type@1':>12}{'pddl@1':>9}{'both@1':>9}")
    for goal_name, goal in goals.items():
        for name, method in methods.items():
            hits = Counter[str]()
            for t in held:
                found = method(goal(t))
                right_type = str(t.metadata["task_type"]) in types[found]
                right_pddl = (
                    json.dumps(t.metadata.get("pddl_params"), sort_keys=True) in pddl[found]
                )
                hits["type"] += right_type
                hits["pddl"] += right_pddl
                hits["both"] += right_type and right_pddl
            n = len(held)
            print(
                f"    {goal_name:<12}{name:<30}{hits['type'] / n:>12.3f}{hits['pddl'] / n:>9.3f}"
                f"{hits['both'] / n:>9.3f}"
            )
            figures.add(f"{goal_name} → {name}: same task type at rank 1", hits["type"] / n)
    reachable = sum(
        any(
            str(t.metadata["task_type"]) in types[x]
            and json.dumps(t.metadata.get("pddl_params"), sort_keys=True) in pddl[x]
            for x in texts
        )
        for t in held
    )
    print(f"    ceiling for both@1 (some stored text has both right): {reachable / len(held):.3f}")
    print(
        "    graphmem retrieve (k=1, t=3) latency: median "
        f"{statistics.median(latencies) * 1000:.0f} ms, p95 {p95(latencies) * 1000:.0f} ms, "
        f"max {max(latencies) * 1000:.0f} ms"
    )
    figures.add("retrieve latency, median", statistics.median(latencies) * 1000, "ms")


def p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--embedder", choices=("minilm", "hash"), default="minilm")
    parser.add_argument("--holdout-every", type=int, default=5)
    add_json_out(parser)
    args = parser.parse_args()
    figures = Figures("experience_memory")
    if not args.data.is_file():
        sys.exit(f"no data at {args.data}: pass --data")
    # expert runs only: ScienceWorld's data (benchmarks/scienceworld_data.py) also holds runs
    # that failed, marked in their metadata
    trajectories = [
        t
        for t in parse_file(args.data, kind="expert")
        if t.metadata.get("run", "expert") == "expert"
    ]
    started = time.perf_counter()
    embedder: Any = SentenceTransformerEmbedder() if args.embedder == "minilm" else HashEmbedder()
    embedder.embed(["warm up"])
    print(
        f"{len(trajectories)} trajectories from {args.data}; embedder {embedder.name} "
        f"(loaded in {time.perf_counter() - started:.1f} s); no LLM; embedded FalkorDB"
    )
    with tempfile.TemporaryDirectory() as home:
        server = EmbeddedServer(Path(home), free_port())
        server.ensure_running()
        try:
            settings = Settings(home=Path(home), embedded_port=server.port, database="bench")
            with GraphMemory(settings, embedder=embedder) as memory:
                memory.init()
                build(memory, trajectories, figures)
                retrieval(memory, embedder, trajectories, args.holdout_every, figures)
        finally:
            server.stop()
    figures.write(args.json_out)


if __name__ == "__main__":
    main()
