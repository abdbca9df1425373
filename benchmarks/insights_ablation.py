"""Controller ablation (EvoGraph-Mem §4.3) on a stream of ALFWorld tasks.

    python benchmarks/insights_ablation.py [--data ../shared/data/alfworld_dev/trajectories.jsonl]
        [--limit N] [--seed 0] [--embedder minilm|hash] [--plot docs/img/insights_ablation.png]
        [--variants add+keep,add+keep+archive,all] [--json series.json]

Three controllers run over the same task stream, each in its own space of one embedded
FalkorDB: add+keep (append only), add+keep+archive, and all (with REVISE). Each task is
retrieved for, "executed" by a simulated agent, recorded with its outcome, and judged by the
offline controller at once (the online loop of §3).

The simulated agent (no LLM exists here) knows what each insight advises: the signature step
it names (heat, cool, clean, use a desklamp). An insight is harmful for a task whose family
(ALFWorld task_type) does not need that step, helpful when it names the step the family needs
(or, for plain pick-and-place families, names none), and ignored when it carries a condition
("Applies only when the task mentions: ...") that the task does not match. The task succeeds
with probability 0.15 if a harmful insight was retrieved, 0.9 if a helpful one was (and no
harmful), 0.6 otherwise; the coin is a hash of the task id, so all controllers face the same
luck. Four over-general seed insights ("always heat...", ...) start in every space with one
supporting task each.

Metrics: pollution = share of retrieved insights that are harmful for the task at hand (over
the last --window tasks, and over the whole stream), the number of active insights, and the
success rate (the proxy above).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import socket
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from figures import Figures, add_json_out

from graphmem_neo4j.embedder import Embedder, HashEmbedder, SentenceTransformerEmbedder
from graphmem_neo4j.insights.models import VARIANTS, RetrievalParams, Step, TaskRecord
from graphmem_neo4j.insights.rules import REVISION_MARKER, condition_keywords, words
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store.embedded import EmbeddedServer

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data" / "alfworld_dev" / "trajectories.jsonl"

SIGNATURES = {
    "heat": {"heat"},
    "cool": {"cool"},
    "clean": {"clean"},
    "light": {"desklamp", "floorlamp"},
}
NEEDS: dict[str, str | None] = {
    "pick_heat_then_place_in_recep": "heat",
    "pick_cool_then_place_in_recep": "cool",
    "pick_clean_then_place_in_recep": "clean",
    "look_at_obj_in_light": "light",
    "pick_and_place_simple": None,
    "pick_two_obj_and_place": None,
}
SEEDS = {
    "pick_heat_then_place_in_recep": "Always heat the object in the microwave before you put it "
    "anywhere.",
    "pick_cool_then_place_in_recep": "Always cool the object in the fridge before you put it "
    "anywhere.",
    "pick_clean_then_place_in_recep": "Always clean the object at the sinkbasin before you put "
    "it anywhere.",
    "look_at_obj_in_light": "Always turn on the desklamp once you hold the object.",
}
P_SUCCESS = {"harmful": 0.15, "helpful": 0.9, "neutral": 0.6}


# --- the simulated agent -------------------------------------------------------------------
def advice(text: str) -> set[str]:
    body = set(re.findall(r"[a-z]+", text.split(REVISION_MARKER)[0].lower()))
    return {step for step, keys in SIGNATURES.items() if body & keys}


def verdict(text: str, family: str, query: str) -> str:
    condition = condition_keywords(text)
    if condition and not set(condition) & words(query):
        return "neutral"  # the agent reads the condition and ignores the insight
    steps, need = advice(text), NEEDS[family]
    if steps - {need}:
        return "harmful"
    if (need is not None and need in steps) or (need is None and not steps):
        return "helpful"
    return "neutral"


class Memoized:
    """The embedder, remembering vectors: each variant embeds the same queries again."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self._cache: dict[str, list[float]] = {}

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            self._cache.update(zip(missing, self.inner.embed(missing), strict=True))
        return [self._cache[t] for t in texts]


def coin(seed: int, task_id: str) -> float:
    digest = hashlib.sha256(f"{seed}:{task_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


# --- the stream ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Row:
    id: str
    family: str
    query: str
    steps: tuple[Step, ...]


def load_stream(path: Path, seed: int, limit: int | None) -> list[Row]:
    rows = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            data = json.loads(line)
            turns = data["conversations"][1:]
            steps = tuple(
                Step(action=a["value"], observation=o["value"])
                for a, o in zip(turns[::2], turns[1::2], strict=False)
            )
            task_id = re.sub(r"[^A-Za-z0-9_.:/#@+=\-]", "_", data["id"])
            rows.append(Row(task_id, data["task_type"], data["task_desc"].rstrip("."), steps))
    random.Random(seed).shuffle(rows)
    return rows[:limit] if limit else rows


# --- one controller over the stream --------------------------------------------------------
@dataclass
class Run:
    name: str
    retrieved: list[int] = field(default_factory=list)
    harmful: list[int] = field(default_factory=list)
    helpful: list[int] = field(default_factory=list)
    success: list[bool] = field(default_factory=list)
    active: list[tuple[int, int]] = field(default_factory=list)
    operations: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def pollution(self, start: int = 0, end: int | None = None) -> float:
        got = sum(self.retrieved[start:end])
        return sum(self.harmful[start:end]) / got if got else 0.0

    def success_rate(self, start: int = 0, end: int | None = None) -> float:
        window = self.success[start:end]
        return sum(window) / len(window) if window else 0.0


def run_variant(
    memory: GraphMemory,
    name: str,
    warmup: list[Row],
    stream: list[Row],
    params: RetrievalParams,
    seed: int,
    checkpoint: int,
) -> Run:
    space = "ablation-" + re.sub(r"[^a-z]+", "-", name).strip("-")
    svc = memory.insights
    memory.ensure_space(space)
    svc.record_tasks(
        [TaskRecord(r.id, r.query, "resolved", r.steps) for r in warmup], space=space, params=params
    )
    for row in warmup:
        svc.add_insight(SEEDS[row.family], space=space, evidence=[row.id], actor="benchmark")
    run = Run(name)
    allowed = VARIANTS[name]
    started = time.perf_counter()
    for n, row in enumerate(stream, start=1):
        shown = svc.retrieve(row.query, space=space, params=params).insights
        verdicts = [verdict(c.text, row.family, row.query) for c in shown]
        kind = (
            "harmful"
            if "harmful" in verdicts
            else "helpful"
            if "helpful" in verdicts
            else "neutral"
        )
        resolved = coin(seed, row.id) < P_SUCCESS[kind]
        task = TaskRecord(
            row.id,
            row.query,
            "resolved" if resolved else "failed",
            row.steps,
            feedback="Task completed." if resolved else "Task failed.",
        )
        done = svc.record_tasks([task], space=space, params=params, learn=True, allowed=allowed)
        recorded = done.tasks[0]
        if [c.id for c in recorded.retrieved] != [c.id for c in shown]:
            print(f"warning: {name}: retrieval changed between run and record", file=sys.stderr)
        assert recorded.feedback is not None
        run.operations.update(e.operation for e in recorded.feedback.plan.edits)
        run.operations["ADD"] += int(recorded.feedback.plan.add.decision)
        run.retrieved.append(len(shown))
        run.harmful.append(verdicts.count("harmful"))
        run.helpful.append(verdicts.count("helpful"))
        run.success.append(resolved)
        if n % 10 == 0 or n == len(stream):
            run.active.append((n, len(svc.list_insights(space=space, limit=1_000_000))))
        if n % checkpoint == 0 or n == len(stream):
            active = run.active[-1][1]
            print(
                f"  {name:<17} {n:>4} tasks: pollution(last {checkpoint}) "
                f"{run.pollution(max(0, n - checkpoint)):.3f}, active insights {active}",
                file=sys.stderr,
            )
    run.seconds = time.perf_counter() - started
    return run


# --- output ----------------------------------------------------------------------------------
def windowed(values: list[float], weights: list[int], window: int) -> list[float]:
    out = []
    for i in range(len(values)):
        lo = max(0, i + 1 - window)
        w = sum(weights[lo : i + 1])
        out.append(sum(values[lo : i + 1]) / w if w else 0.0)
    return out


def plot(runs: list[Run], window: int, path: Path) -> Path:
    """Two panels: pollution over the last `window` tasks, and active insights."""
    from plots import AblationSeries, ablation_plot

    series = [
        AblationSeries(
            r.name,
            windowed([float(h) for h in r.harmful], r.retrieved, window),
            [(i, a) for i, a in r.active],
        )
        for r in runs
    ]
    return ablation_plot(series, window, path)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=None, help="Tasks in the stream")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--embedder", choices=("minilm", "hash"), default="minilm")
    parser.add_argument("-k", type=int, default=5)
    parser.add_argument("-b", type=int, default=5)
    parser.add_argument("--lambda", dest="lam", type=float, default=1.0)
    parser.add_argument("--window", type=int, default=100)
    parser.add_argument(
        "--variants", default=",".join(VARIANTS), help="Comma-separated subset of controllers"
    )
    parser.add_argument(
        "--plot", type=Path, default=None, help="Write the curves as an image (.png or .svg)"
    )
    parser.add_argument("--json", type=Path, default=None, help="Write every series as JSON")
    add_json_out(parser)
    args = parser.parse_args()
    figures = Figures("insights_ablation")

    rows = load_stream(args.data, args.seed, None)
    warmup: list[Row] = []
    for family in SEEDS:
        first = next(r for r in rows if r.family == family)
        warmup.append(first)
        rows.remove(first)
    stream = rows[: args.limit] if args.limit else rows
    embedder = Memoized(
        SentenceTransformerEmbedder() if args.embedder == "minilm" else HashEmbedder(384)
    )
    params = RetrievalParams(k=args.k, b=args.b, lam=args.lam)
    families = Counter(r.family for r in stream)
    print(
        f"stream: {len(stream)} ALFWorld tasks from {args.data} (seed {args.seed}); "
        f"{dict(families)}; embedder {embedder.name}; k={args.k} B={args.b} λ={args.lam}",
        file=sys.stderr,
    )
    with tempfile.TemporaryDirectory(prefix="graphmem-ablation-") as home:
        server = EmbeddedServer(Path(home), free_port())
        server.ensure_running()
        try:
            settings = Settings(home=Path(home), embedded_port=server.port, database="ablation")
            with GraphMemory(settings, embedder=embedder) as memory:
                memory.init()
                runs = [
                    run_variant(memory, name, warmup, stream, params, args.seed, args.window)
                    for name in args.variants.split(",")
                ]
        finally:
            server.stop()
    n, w = len(stream), args.window
    print(
        f"\n{'controller':<18} {'pollution':>9} {'pollution':>9} {'success':>7} {'success':>7} "
        f"{'active':>6}  edits"
    )
    print(
        f"{'':<18} {'last ' + str(w):>9} {'all':>9} {'last ' + str(w):>7} {'all':>7} {'at end':>6}"
    )
    for r in runs:
        edits = ", ".join(f"{op} {c}" for op, c in sorted(r.operations.items()) if op != "NONE")
        print(
            f"{r.name:<18} {r.pollution(n - w):>9.3f} {r.pollution():>9.3f} "
            f"{r.success_rate(n - w):>7.3f} {r.success_rate():>7.3f} {r.active[-1][1]:>6}  {edits}"
        )
        figures.add(f"{r.name}: pollution over the last {w} tasks", r.pollution(n - w))
    by_name = {r.name: r for r in runs}
    if set(by_name) == set(VARIANTS):
        base, archive, full = by_name["add+keep"], by_name["add+keep+archive"], by_name["all"]
        last = n - w
        ratio = full.pollution(last) / base.pollution(last) if base.pollution(last) else 0.0
        print(
            f"\nfull/add+keep pollution over the last {w} tasks: {ratio:.3f} (target ≤ 0.333); "
            f"full < add+keep+archive: {full.pollution(last) < archive.pollution(last)}"
        )
        figures.add(f"full / add+keep pollution over the last {w} tasks", ratio)
    print(f"wall time per controller: {', '.join(f'{r.name} {r.seconds:.0f} s' for r in runs)}")
    if args.plot and set(by_name) == set(VARIANTS):
        print(f"curves written to {plot(runs, w, args.plot)}")
    if args.json:
        payload: dict[str, Any] = {
            r.name: {
                "retrieved": r.retrieved,
                "harmful": r.harmful,
                "helpful": r.helpful,
                "success": r.success,
                "active": r.active,
                "operations": dict(r.operations),
            }
            for r in runs
        }
        args.json.write_text(json.dumps(payload), encoding="utf-8")
    figures.write(args.json_out)


if __name__ == "__main__":
    main()
