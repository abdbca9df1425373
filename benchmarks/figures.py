"""The figures a benchmark run printed, as JSON for benchmarks/report.py: every benchmark script
takes `--json-out PATH` and writes there its figures (name, value, unit), the command that
ran it, the date and the machine's load average at the start and at the end of the run."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

FORMAT = "graphmem-benchmark/1"


def add_json_out(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json-out",
        type=Path,
        metavar="PATH",
        help="also write the figures of this run as JSON to PATH (read by benchmarks/report.py)",
    )


def command_line(argv: list[str] | None = None) -> str:
    """The command as a user types it from the repository root, `python benchmarks/x.py ...`,
    without the --json-out option (where the figures went is not how they were made)."""
    args = sys.argv if argv is None else argv
    script = Path(args[0])
    shown = f"benchmarks/{script.name}" if script.suffix == ".py" else args[0]
    options: list[str] = []
    skip = False
    for arg in args[1:]:
        if skip:
            skip = False
        elif arg == "--json-out":
            skip = True
        elif not arg.startswith("--json-out="):
            options.append(arg)
    return shlex.join(["python", shown, *options])


def load_average() -> list[float]:
    return [round(value, 2) for value in os.getloadavg()]


@dataclass
class Figures:
    """Collects a run's figures; `write` puts them in the JSON file `--json-out` names."""

    benchmark: str
    command: str = field(default_factory=command_line)
    load_start: list[float] = field(default_factory=load_average)
    started: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    figures: list[dict[str, Any]] = field(default_factory=list)

    def add(self, name: str, value: float | int | str, unit: str = "") -> None:
        """One figure; `name` is the key the report's targets use (stable across runs)."""
        if isinstance(value, float):
            value = round(value, 4)
        self.figures.append({"name": name, "value": value, "unit": unit})

    def as_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "benchmark": self.benchmark,
            "command": self.command,
            "date": self.started,
            "load_start": self.load_start,
            "load_end": load_average(),
            "figures": self.figures,
        }

    def write(self, path: Path | None) -> None:
        """Write the JSON when `--json-out` was given (path None: nothing to do)."""
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.as_json(), indent=1) + "\n", encoding="utf-8")
        print(f"figures written to {path}")
