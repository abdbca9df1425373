"""A tool-calling world for the task-memory benchmarks: the multi-turn tasks of the Berkeley
Function Calling Leaderboard (BFCL v4, Apache 2.0), as trajectories.

    pip download --no-deps bfcl-eval==2026.3.23 -d /tmp/bfcl
    python benchmarks/bfcl_data.py --wheel /tmp/bfcl/bfcl_eval-2026.3.23-py3-none-any.whl \\
        --out bfcl_multi_turn.jsonl

Each user turn of `BFCL_v4_multi_turn_base.json` is one task: its goal is the user's message,
its steps are the turn's ground-truth tool calls (`cd(folder='document')`, `mkdir(...)`), each
with an empty observation (the data holds none). Its task type is the API the calls go to (the
`multi_turn_func_doc` file that documents them: `gorilla_file_system`, `trading_bot`, …; two
joined with '+' when a turn calls two). The wheel is read as a zip file: nothing is installed.
Turns without a ground-truth call are left out.
"""

from __future__ import annotations

import argparse
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

DATA = "bfcl_eval/data/"
TASKS = DATA + "BFCL_v4_multi_turn_base.json"
ANSWERS = DATA + "possible_answer/BFCL_v4_multi_turn_base.json"
DOCS = DATA + "multi_turn_func_doc/"
CLASS_DOC = {
    "GorillaFileSystem": "gorilla_file_system",
    "MathAPI": "math_api",
    "MessageAPI": "message_api",
    "TwitterAPI": "posting_api",
    "TicketAPI": "ticket_api",
    "TradingBot": "trading_bot",
    "TravelAPI": "travel_booking",
    "VehicleControlAPI": "vehicle_control",
}
"""The API classes an entry's `involved_classes` names, and the doc file of each."""


def jsonl(archive: zipfile.ZipFile, name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in archive.read(name).decode().splitlines() if line.strip()]


def documented(archive: zipfile.ZipFile) -> dict[str, set[str]]:
    """Function name → the doc files (APIs) that define it."""
    apis: dict[str, set[str]] = {}
    for doc in CLASS_DOC.values():
        for function in jsonl(archive, f"{DOCS}{doc}.json"):
            apis.setdefault(function["name"], set()).add(doc)
    return apis


def api_of(call: str, apis: dict[str, set[str]], involved: set[str], where: str) -> str:
    name = call.split("(", 1)[0].strip()
    found = apis.get(name, set()) & involved
    if len(found) != 1:
        raise ValueError(f"{where}: call {call!r} is documented by {sorted(found) or 'no API'}")
    return next(iter(found))


def rows(archive: zipfile.ZipFile) -> list[dict[str, Any]]:
    apis = documented(archive)
    answers = {a["id"]: a["ground_truth"] for a in jsonl(archive, ANSWERS)}
    found = []
    for entry in jsonl(archive, TASKS):
        involved = {CLASS_DOC[c] for c in entry["involved_classes"]}
        for turn, (messages, calls) in enumerate(
            zip(entry["question"], answers[entry["id"]], strict=True)
        ):
            goal = " ".join(m["content"] for m in messages if m["role"] == "user").strip()
            if not calls or not goal:
                continue
            where = f"{entry['id']} turn {turn}"
            task_type = "+".join(sorted({api_of(c, apis, involved, where) for c in calls}))
            found.append(
                {
                    "id": f"{entry['id']}-t{turn}",
                    "task": goal,
                    "reward": 1.0,
                    "steps": [{"action": c, "observation": ""} for c in calls],
                    "metadata": {"task_type": task_type, "run": "expert", "entry": entry["id"]},
                }
            )
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", type=Path, required=True, help="the bfcl-eval wheel file")
    parser.add_argument("--out", type=Path, required=True, help="the JSONL file to write")
    args = parser.parse_args(argv)
    try:
        with zipfile.ZipFile(args.wheel) as archive:
            found = rows(archive)
    except (OSError, KeyError, zipfile.BadZipFile, ValueError) as error:
        print(f"bfcl_data: {args.wheel}: {error}", file=sys.stderr)
        return 2
    with args.out.open("w") as out:
        for row in found:
            out.write(json.dumps(row) + "\n")
    types: dict[str, int] = {}
    for row in found:
        types[row["metadata"]["task_type"]] = types.get(row["metadata"]["task_type"], 0) + 1
    print(json.dumps({"out": str(args.out), "tasks": len(found), "task_types": types}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
