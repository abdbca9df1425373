"""Render docs/benchmarks.md from the benchmarks' JSON output: one table of every figure with its
target, value, the command that printed it, the date and the machine's load average.

    python benchmarks/report.py [--results benchmarks/results] [--out docs/benchmarks.md]

It also rewrites the README's headline figures (between its `headline figures` markers) from
the same runs.

Each benchmark writes its JSON with `--json-out PATH` (`make bench` writes them all to
benchmarks/results/). A benchmark without a JSON file is listed as not run, with the command that
runs it; no figure is ever copied by hand."""

from __future__ import annotations

import argparse
import json
import operator
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from figures import FORMAT

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Target:
    op: str  # ">=", "<=" or "=="
    bound: float
    unit: str = ""

    def met(self, value: float) -> bool:
        compare: Callable[[float, float], bool] = {
            ">=": operator.ge,
            "<=": operator.le,
            "==": operator.eq,
        }[self.op]
        return compare(value, self.bound)

    def __str__(self) -> str:
        sign = {">=": "≥", "<=": "≤", "==": "="}[self.op]
        return f"{sign} {self.bound:,g}{' ' + self.unit if self.unit else ''}"


# The targets, by benchmark and figure name (the names the scripts write). A figure without a
# target is reported as measured.
TARGETS: dict[tuple[str, str], Target] = {
    ("foundation", "batched node writes"): Target(">=", 5000, "nodes/s"),
    ("foundation", "graphmem --help, median"): Target("<=", 500, "ms"),
    ("cli_latency", "warm graphmem search, median"): Target("<=", 1.0, "s"),
    ("cli_latency", "warm graphmem facts current, median"): Target("<=", 0.5, "s"),
    ("conversation_scale", "ingest, 10000 turns"): Target(">=", 100, "turns/s"),
    ("conversation_scale", "search hybrid p95 at 10000 turns"): Target("<=", 50, "ms"),
    ("conversation_scale", "search hybrid p95 at 10000 turns / floor"): Target("<=", 3, "x"),
    ("conversation_scale", "search hybrid p95 at 100000 turns"): Target("<=", 60, "ms"),
    ("locomo", "hybrid: R@10"): Target(">=", 0.65),
    ("locomo", "hybrid: multi-hop R@10"): Target(">=", 0.40),
    ("conversation_forgetting", "nodes removed"): Target(">=", 0.09),
    ("conversation_forgetting", "recall@10 change after forgetting"): Target(">=", -0.02),
    ("facts_conflicts", "coordinated: dynamic answer accuracy"): Target(">=", 0.95),
    ("facts_conflicts", "coordinated: static answer accuracy"): Target(">=", 0.90),
    ("facts_conflicts", "coordinated: conditional answer accuracy"): Target(">=", 0.95),
    ("facts_locality", "units read per update, largest / smallest store"): Target("<=", 2, "x"),
    ("insights_ablation", "full / add+keep pollution over the last 100 tasks"): Target("<=", 0.333),
    (
        "insights_retrieval",
        "retrieve_by_vector with the task's goal (task structure), p95",
    ): Target("<=", 30, "ms"),
    ("insights_replay", "all: retrieved insights of the task's own type"): Target(">=", 0.9),
    ("insights_replay", "all: positive evidence of the insight's own type"): Target(">=", 0.9),
    ("experience_matching", "replace: edit-path precision"): Target(">=", 0.9),
    ("experience_matching", "replace: edit-path recall"): Target(">=", 0.95),
    ("experience_matching", "insert_invalid: edit-path precision"): Target(">=", 0.9),
    ("experience_matching", "insert_invalid: edit-path recall"): Target(">=", 0.95),
    ("experience_matching", "match expert vs perturbed copy, max"): Target("<=", 1, "s"),
    (
        "experience_memory",
        "task text → graphmem (task + skeleton): same task type at rank 1",
    ): Target(">=", 0.95),
    ("experience_memory", "build 593 trajectories"): Target("<=", 120, "s"),
    ("recall_scale", "recall p95"): Target("<=", 100, "ms"),
    ("soak_crash", "acknowledged writes lost"): Target("==", 0),
    ("soak_crash", "writes duplicated"): Target("==", 0),
}

# Every benchmark and the command that produces its row (with --json-out added by `make bench`).
COMMANDS: dict[str, str] = {
    "foundation": "python benchmarks/foundation.py",
    "cli_latency": "python benchmarks/cli_latency.py --runs 10",
    "embedders": "python benchmarks/embedders.py",
    "fusion_cv": "python benchmarks/fusion_cv.py --second ~/.graphmem/models/bge-small-en-v1.5",
    "ranker_cv": "python benchmarks/ranker_cv.py",
    "conversation_scale": "python benchmarks/conversation_scale.py --turns 10000",
    "locomo": "python benchmarks/locomo.py --modes hybrid --no-baselines --ablation --cv --cv-core",
    "longmemeval": "python benchmarks/longmemeval.py --data "
    "~/.graphmem/data/longmemeval_oracle.json --pooled --rankings learned,fusion",
    "conversation_forgetting": "python benchmarks/conversation_forgetting.py",
    "facts_conflicts": "python benchmarks/facts_conflicts.py --per-kind 200 --replicas 3",
    "facts_locality": "python benchmarks/facts_locality.py --sizes 1000 10000 100000",
    "insights_ablation": "python benchmarks/insights_ablation.py --seed 0",
    "insights_retrieval": "python benchmarks/insights_retrieval.py",
    "insights_replay": "python benchmarks/insights_replay.py",
    "experience_matching": "python benchmarks/experience_matching.py",
    "experience_memory": "python benchmarks/experience_memory.py",
    "recall_locomo": "python benchmarks/recall_locomo.py",
    "recall_scale": "python benchmarks/recall_scale.py",
    "recall_tokens": "python benchmarks/recall_tokens.py",
    "batch_ingest": "python benchmarks/batch_ingest.py",
    "aof_fsync": "python benchmarks/aof_fsync.py --rounds 4",
    "engine_parity": "python benchmarks/engine_parity.py",
    "engine_reads": "python benchmarks/engine_reads.py --turns 5000 --queries 100",
    "nearest_crowding": "python benchmarks/nearest_crowding.py",
    "vector_width": "python benchmarks/vector_width.py --turns 10000 --queries 100",
    "soak_crash": "python benchmarks/soak_crash.py --every --layers conversation",
    "llm_vs_offline": "python benchmarks/llm_vs_offline.py --turns 3 --tasks 4 --timeout 400",
    "migrate_mem0": "python benchmarks/migrate_mem0.py",
    "serve_load": "python benchmarks/serve_load.py --seconds 20",
}

# The handful of figures README.md quotes, between its "headline figures" markers.
HEADLINES: list[tuple[str, str]] = [
    ("locomo", "hybrid: R@10"),
    ("locomo", "hybrid: multi-hop R@10"),
    ("facts_conflicts", "coordinated: dynamic answer accuracy"),
    ("insights_replay", "all: retrieved insights of the task's own type"),
    ("experience_matching", "replace: edit-path recall"),
    ("recall_scale", "recall p95"),
    ("cli_latency", "warm graphmem search, median"),
    ("soak_crash", "acknowledged writes lost"),
]
HEADLINE_REGION = re.compile(
    r"(<!-- BEGIN headline figures -->\n).*?(<!-- END headline figures -->)", re.S
)

HEADER = """# Benchmarks

Generated by `make bench-report` (`python benchmarks/report.py`) from the JSON each script in
`benchmarks/` writes with `--json-out`; do not edit by hand. Each row is one figure of one run:
its target where it has one (✓ met, ✗ not met), the command that printed it, when it ran, and
the machine's load average (1 minute) at the start and at the end of the run: a latency
measured at a high load is pessimistic, and the script's own output has its same-run
baseline. Quality figures (recall, accuracy, precision) do not depend on the load. To refresh
one row, run its command with `--json-out benchmarks/results/NAME.json`, then
`make bench-report`. A ″ stands for the run of the row above.
"""


def format_number(value: float | int | str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return f"{value:,}"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.3f}"


def load_runs(folder: Path) -> dict[str, dict[str, Any]]:
    """Every benchmark's JSON in `folder`, by benchmark name; a file of another format is an
    error naming it."""
    runs: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.json")):
        try:
            run = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise SystemExit(f"{path}: not JSON ({e})") from None
        if not isinstance(run, dict) or run.get("format") != FORMAT:
            raise SystemExit(f"{path}: not a benchmark result (format {FORMAT!r} expected)")
        for key in ("benchmark", "command", "date", "load_start", "load_end", "figures"):
            if key not in run:
                raise SystemExit(f"{path}: field {key!r} missing")
        runs[run["benchmark"]] = run
    return runs


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def rows(runs: Mapping[str, Mapping[str, Any]]) -> Iterable[list[str]]:
    order = [*COMMANDS, *sorted(set(runs) - set(COMMANDS))]
    for name in order:
        run = runs.get(name)
        if run is None:
            continue
        load = f"{run['load_start'][0]:.1f} → {run['load_end'][0]:.1f}"
        date = run["date"][:16].replace("T", " ")
        command = f"`{cell(run['command'])}`"
        for number, figure in enumerate(run["figures"]):
            value = figure["value"]
            shown = format_number(value) + (f" {figure['unit']}" if figure["unit"] else "")
            target = TARGETS.get((name, figure["name"]))
            if target is None:
                goal = "report"
            else:
                goal = str(target)
                if not isinstance(value, str):
                    shown += " ✓" if target.met(float(value)) else " ✗"
            first = number == 0  # the run's command, date and load: on its first row only
            yield [
                cell(f"{name}: {figure['name']}"),
                goal,
                shown,
                command if first else "″",
                date if first else "″",
                load if first else "″",
            ]


def render(runs: Mapping[str, Mapping[str, Any]]) -> str:
    lines = [HEADER]
    lines.append("| figure | target | value | command | date (UTC) | load |")
    lines.append("|---|---|---|---|---|---|")
    lines += ["| " + " | ".join(row) + " |" for row in rows(runs)]
    missing = [name for name in COMMANDS if name not in runs]
    if missing:
        lines.append("\nNot run yet (no JSON in benchmarks/results/):\n")
        lines += [f"- `{name}`: `{COMMANDS[name]}`" for name in missing]
    return "\n".join(lines) + "\n"


def headlines(runs: Mapping[str, Mapping[str, Any]]) -> str:
    """The README's headline lines: each figure with its target, from the runs there are."""
    lines = []
    for name, figure_name in HEADLINES:
        run = runs.get(name)
        figure = (
            next((f for f in run["figures"] if f["name"] == figure_name), None) if run else None
        )
        if run is None or figure is None:
            continue
        value = format_number(figure["value"]) + (f" {figure['unit']}" if figure["unit"] else "")
        target = TARGETS.get((name, figure_name))
        goal = f" (target {target})" if target else ""
        load = f"load {run['load_start'][0]:.1f} → {run['load_end'][0]:.1f}"
        lines.append(f"- {name}: {figure_name}: **{value}**{goal}, `{run['command']}` ({load})")
    return "\n".join(lines) + "\n" if lines else ""


def update_readme(path: Path, runs: Mapping[str, Mapping[str, Any]]) -> None:
    text = path.read_text(encoding="utf-8")
    if not HEADLINE_REGION.search(text):
        raise SystemExit(f"{path}: no <!-- BEGIN/END headline figures --> markers")
    block = headlines(runs)
    path.write_text(
        HEADLINE_REGION.sub(lambda m: m.group(1) + block + m.group(2), text), encoding="utf-8"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--results", type=Path, default=REPO / "benchmarks" / "results")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "benchmarks.md")
    parser.add_argument(
        "--readme",
        type=Path,
        default=REPO / "README.md",
        help="the file whose headline-figures block is rewritten (the README)",
    )
    args = parser.parse_args(argv)
    runs = load_runs(args.results)
    text = render(runs)
    args.out.write_text(text, encoding="utf-8")
    update_readme(args.readme, runs)
    print(f"{args.out}: {text.count(chr(10))} lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
