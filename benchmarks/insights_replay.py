"""Insight memory on a replayed agent run: does retrieval hand a task insights of its own type,
and does evidence go only where an insight applied?

    python benchmarks/insights_replay.py [--data ../shared/data/alfworld_dev/trajectories.jsonl]
        [--seed 0] [--limit N] [--fail-rate 0.15] [--human-goals 0.0]
        [--variants add+keep,add+keep+archive,all]

The stream is the ALFWorld trajectories of `alfworld_dev` in a run order (shuffled with
--seed: an agent meets the task types mixed). Each task is the agent's run: the expert run,
resolved, or with probability --fail-rate (0.15: 19 of the 134 tasks of the real run the
issue describes failed; a hash of the task id is the coin) a perturbed copy made as
benchmarks/experience_matching.py makes them (replace, delete, insert invalid attempts or swap,
graphmem_neo4j.experience.perturb), failed. Goal texts are the environment's ("put a cool
tomato in microwave."); --human-goals gives that share of tasks one of their human-written
goals instead ("Put a chilled tomato in the microwave.").

The stream is written as a tasks JSONL file (the format of `graphmem tasks record`), read back
with the CLI's reader, and replayed through `InsightService.record_tasks(..., learn=True)`, the
code path of `graphmem tasks record --feedback`, once per controller, each in its own space of
one embedded FalkorDB, with the default embedding model and the offline controller. Then the
same file is recorded again into the full controller's space: it must store nothing.

Printed per controller:
- same-type precision: share of retrieved insights whose source task (the task that added it;
  for a revision, the source of the insight it revised) has the type of the task at hand;
- positive evidence of own type: share of KEEP edits made on a task of the insight's type;
- pollution: share of retrieved insights that advise a step the task's type does not need
  (benchmarks/insights_ablation.py's rule), over the whole stream and its last 100 tasks;
- how many tasks got any insight, active insights at the end, and the edits by operation.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from figures import Figures, add_json_out
from insights_ablation import NEEDS, Memoized, coin, free_port, verdict

from graphmem_neo4j.embedder import make_embedder
from graphmem_neo4j.experience.models import Trajectory
from graphmem_neo4j.experience.parsing import parse_file
from graphmem_neo4j.experience.perturb import PERTURB_KINDS, perturb
from graphmem_neo4j.insights.models import (
    VARIANTS,
    RetrievalParams,
    Step,
    TaskRecord,
    stable_id,
)
from graphmem_neo4j.insights.parsing import read_tasks
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store.embedded import EmbeddedServer
from graphmem_neo4j.task_model import GoalModel
from graphmem_neo4j.task_structure import trajectory_structure

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data" / "alfworld_dev" / "trajectories.jsonl"


@dataclass(frozen=True)
class Task:
    record: TaskRecord
    family: str


def goal_of(t: Trajectory, rng: random.Random, human_share: float) -> str:
    humans = [h.strip() for h in t.metadata.get("human_goal_descs", []) if h.strip()]
    if humans and rng.random() < human_share:
        return rng.choice(humans)
    return t.task


def agent_run(
    t: Trajectory, failed: bool, rng: random.Random, real: list[Trajectory]
) -> Trajectory | None:
    """The expert run, or a failed one: a run of the same game the simulator scored below 1
    when the data has one (ScienceWorld's), else a perturbed copy of the expert run (None when
    no perturbation fits)."""
    if not failed:
        return t
    if real:
        return rng.choice(real)
    for kind in rng.sample(PERTURB_KINDS, len(PERTURB_KINDS)):
        p = perturb(t, kind, rng)
        if p is not None:
            return p.perturbed
    return None


def build_stream(
    path: Path,
    seed: int,
    limit: int | None,
    fail_rate: float,
    human: float,
    typed: bool = False,
) -> list[Task]:
    every = parse_file(path, kind="expert")
    runs = [t for t in every if t.metadata.get("run", "expert") == "expert"]
    failures: dict[str, list[Trajectory]] = {}
    for t in every:
        if t.metadata.get("run", "expert") != "expert":
            failures.setdefault(game(t), []).append(t)
    random.Random(seed).shuffle(runs)
    rng = random.Random(f"{seed}-stream")
    stream: list[Task] = []
    for t in runs[:limit] if limit else runs:
        task_id = re.sub(r"[^A-Za-z0-9_.:/#@+=\-]", "_", t.id)
        failed = coin(seed, task_id) < fail_rate
        run = agent_run(t, failed, rng, failures.get(game(t), []))
        if run is None:
            run, failed = t, False
        record = TaskRecord(
            id=task_id,
            query=goal_of(t, rng, human),
            status="failed" if failed else "resolved",
            steps=tuple(Step(s.action, s.observation) for s in run.steps),
            feedback="Task failed." if failed else "Task completed.",
            task_type=str(t.metadata["task_type"]) if typed else None,
        )
        stream.append(Task(record, str(t.metadata["task_type"])))
    return stream


def game(t: Trajectory) -> str:
    """Which game a run played: its task type and variation (ScienceWorld rows), else its id."""
    if "variation" in t.metadata:
        return f"{t.metadata['task_type']}/{t.metadata['variation']}"
    return t.id


def write_jsonl(stream: list[Task], path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        for t in stream:
            r = t.record
            out.write(
                json.dumps(
                    {
                        "id": r.id,
                        "query": r.query,
                        "status": r.status,
                        "steps": [
                            {"action": s.action, "observation": s.observation} for s in r.steps
                        ],
                        "feedback": r.feedback,
                        **({"task_type": r.task_type} if r.task_type else {}),
                    }
                )
                + "\n"
            )


@dataclass
class Run:
    name: str
    retrieved: int = 0
    same_type: int = 0
    harmful: list[int] = field(default_factory=list)
    shown: list[int] = field(default_factory=list)
    own: list[int] = field(default_factory=list)
    """Per task: how many of its retrieved insights were of its type (shown: how many)."""
    keeps: int = 0
    own_keeps: int = 0
    with_insight: int = 0
    active: int = 0
    operations: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def interval(self, draws: int = 1000) -> tuple[float, float]:
        """95% bootstrap interval of same-type precision, resampling tasks."""
        rng = random.Random(0)
        n = len(self.shown)
        found = []
        for _ in range(draws):
            picks = [rng.randrange(n) for _ in range(n)]
            got = sum(self.shown[i] for i in picks)
            found.append(sum(self.own[i] for i in picks) / got if got else 0.0)
        found.sort()
        return found[int(0.025 * draws)], found[int(0.975 * draws) - 1]

    def pollution(self, start: int = 0) -> float:
        got = sum(self.shown[start:])
        return sum(self.harmful[start:]) / got if got else 0.0


def replay(
    memory: GraphMemory,
    name: str,
    tasks: list[TaskRecord],
    family: dict[str, str],
    params: RetrievalParams,
) -> Run:
    space = "replay-" + re.sub(r"[^a-z]+", "-", name).strip("-")
    run = Run(name)
    started = time.perf_counter()
    summary = memory.insights.record_tasks(
        tasks, space=space, params=params, learn=True, allowed=VARIANTS[name]
    )
    run.seconds = time.perf_counter() - started
    source: dict[str, str] = {}  # insight id → type of the task it was learnt from
    texts: dict[str, str] = {t.id: t.query for t in tasks}
    for done in summary.tasks:
        mine = family[done.id]
        got = [source.get(c.id) for c in done.retrieved]
        run.retrieved += len(got)
        run.same_type += sum(1 for g in got if g == mine)
        run.own.append(sum(1 for g in got if g == mine))
        run.with_insight += bool(got)
        run.shown.append(len(got))
        run.harmful.append(
            sum(
                mine in NEEDS and verdict(c.text, mine, texts[done.id]) == "harmful"
                for c in done.retrieved
            )
        )
        assert done.feedback is not None
        plan = done.feedback.plan
        for edit in plan.edits:
            run.operations[edit.operation] += 1
            if edit.operation == "KEEP":
                run.keeps += 1
                run.own_keeps += source.get(edit.insight_id) == mine
            if edit.operation == "REVISE" and edit.insight_id in source:
                new_id = stable_id("ins", done.id, "revise", edit.insight_id)
                source[new_id] = source[edit.insight_id]
        if plan.add.decision:
            run.operations["ADD"] += 1
            source[stable_id("ins", done.id, "add")] = mine
    run.active = len(memory.insights.list_insights(space=space, limit=1_000_000))
    return run


def key_accuracy(stream: list[Task]) -> str:
    """The goal model (task_model.GoalModel) in the stream's order, as a space learns it: each
    resolved task's goal is predicted from the tasks before it only, then learnt with the
    structure its trajectory shows. Right = the structure the trajectory shows; types per
    structure = how many task types share one structure (1.0: structures separate types)."""
    model = GoalModel()
    right = unsure = wrong = 0
    types: dict[str, set[str]] = {}
    for t in stream:
        if t.record.status != "resolved":
            continue
        truth = trajectory_structure([s.action for s in t.record.steps])
        if truth is None:
            continue
        types.setdefault(truth, set()).add(t.family)
        guess = model.predict(t.record.query)
        right += guess == truth
        unsure += guess is None
        wrong += guess is not None and guess != truth
        model.learn(t.record.query, truth)
    n = max(1, right + unsure + wrong)
    per = sum(len(v) for v in types.values()) / max(1, len(types))
    return (
        f"goal model in replay order: {right / n:.3f} right, {unsure / n:.3f} abstained, "
        f"{wrong / n:.3f} wrong of {n} resolved goals; {len(types)} structures, "
        f"{per:.2f} task types per structure"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--fail-rate", type=float, default=0.15)
    parser.add_argument("--human-goals", type=float, default=0.0)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("-k", type=int, default=5)
    parser.add_argument("-b", type=int, default=5)
    parser.add_argument(
        "--seed-margin", type=float, default=None, help="RetrievalParams.seed_margin (default its)"
    )
    parser.add_argument(
        "--lexical-weight",
        type=float,
        default=None,
        help="RetrievalParams.lexical_weight (default its)",
    )
    parser.add_argument(
        "--lexical-override",
        type=float,
        default=None,
        help="RetrievalParams.lexical_override (default its; above 1: off)",
    )
    parser.add_argument(
        "--min-similarity",
        type=float,
        default=None,
        help="RetrievalParams.min_similarity (default its)",
    )
    parser.add_argument(
        "--edge-min-similarity",
        type=float,
        default=None,
        help="RetrievalParams.edge_min_similarity (default its)",
    )
    parser.add_argument(
        "--neighbours",
        type=int,
        default=None,
        help="RetrievalParams.neighbours (default its; 0: no similarity edges)",
    )
    parser.add_argument(
        "--task-type",
        action="store_true",
        help="give each task its type as task_type (the caller who knows it)",
    )
    add_json_out(parser)
    args = parser.parse_args()
    figures = Figures("insights_replay")

    stream = build_stream(
        args.data, args.seed, args.limit, args.fail_rate, args.human_goals, args.task_type
    )
    family = {t.record.id: t.family for t in stream}
    mix = Counter(t.family for t in stream)
    chance = sum((n / len(stream)) ** 2 for n in mix.values())
    failed = sum(t.record.status == "failed" for t in stream)
    params = RetrievalParams(k=args.k, b=args.b)
    if args.seed_margin is not None:
        params = replace(params, seed_margin=args.seed_margin)
    if args.lexical_weight is not None:
        params = replace(params, lexical_weight=args.lexical_weight)
    if args.lexical_override is not None:
        params = replace(params, lexical_override=args.lexical_override)
    if args.min_similarity is not None:
        params = replace(params, min_similarity=args.min_similarity)
    if args.edge_min_similarity is not None:
        params = replace(params, edge_min_similarity=args.edge_min_similarity)
    if args.neighbours is not None:
        params = replace(params, neighbours=args.neighbours)
    with tempfile.TemporaryDirectory(prefix="graphmem-replay-") as home:
        tasks_file = Path(home) / "stream.jsonl"
        write_jsonl(stream, tasks_file)
        tasks = list(read_tasks(tasks_file).tasks)  # what `graphmem tasks record` reads
        print(
            f"stream: {len(tasks)} tasks (seed {args.seed}), {failed} failed, human goals "
            f"{args.human_goals}; {dict(mix)}; chance same-type precision {chance:.3f}",
            file=sys.stderr,
        )
        server = EmbeddedServer(Path(home), free_port())
        server.ensure_running()
        try:
            settings = Settings(home=Path(home), embedded_port=server.port, database="replay")
            embedder = Memoized(make_embedder(settings))
            with GraphMemory(settings, embedder=embedder) as memory:
                memory.init()
                runs = []
                for name in args.variants.split(","):
                    runs.append(replay(memory, name, tasks, family, params))
                    print(f"  {name}: {runs[-1].seconds:.0f} s", file=sys.stderr)
                again = memory.insights.record_tasks(
                    tasks,
                    space="replay-" + re.sub(r"[^a-z]+", "-", runs[-1].name).strip("-"),
                    params=params,
                    learn=True,
                    allowed=VARIANTS[runs[-1].name],
                )
        finally:
            server.stop()
    print(key_accuracy(stream))
    print(
        f"\n{'controller':<18}{'same-type':>10}{'own-type':>10}{'pollution':>10}{'pollution':>10}"
        f"{'tasks w/':>9}{'active':>7}  edits"
    )
    print(
        f"{'':<18}{'precision':>10}{'evidence':>10}{'all':>10}{'last 100':>10}"
        f"{'insight':>9}{'at end':>7}"
    )
    n = len(tasks)
    for r in runs:
        precision = r.same_type / r.retrieved if r.retrieved else 0.0
        purity = r.own_keeps / r.keeps if r.keeps else 0.0
        edits = ", ".join(f"{op} {c}" for op, c in sorted(r.operations.items()) if op != "NONE")
        known = all(t.family in NEEDS for t in stream)  # the pollution rule is ALFWorld's
        pollution = (
            f"{r.pollution():>10.3f}{r.pollution(max(0, n - 100)):>10.3f}"
            if known
            else f"{'-':>10}{'-':>10}"
        )
        print(
            f"{r.name:<18}{precision:>10.3f}{purity:>10.3f}{pollution}"
            f"{r.with_insight:>9}{r.active:>7}  {edits}"
        )
        low, high = r.interval()
        print(
            f"{'':<18}same-type precision 95% interval (bootstrap over tasks) {low:.3f}-{high:.3f}"
        )
        figures.add(f"{r.name}: retrieved insights of the task's own type", precision)
        figures.add(f"{r.name}: positive evidence of the insight's own type", purity)
        if known:
            figures.add(f"{r.name}: pollution", r.pollution())
    judged = sum(t.feedback is not None and t.feedback.applied for t in again.tasks)
    print(
        f"\nre-recording the stream into {runs[-1].name}'s space: {again.recorded} recorded, "
        f"{again.unchanged} unchanged, {judged} judged again"
    )
    figures.write(args.json_out)


if __name__ == "__main__":
    main()
