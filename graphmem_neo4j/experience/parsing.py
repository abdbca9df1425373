"""Reading trajectories: ALFWorld-style conversations and the generic JSONL form.

A file is read and checked whole before anything is stored: the first bad line stops it with
an InputError naming the file, line and field.

Generic JSONL, one trajectory per line::

    {"id": "run-1", "task": "put a mug in the coffee machine", "reward": 1.0,
     "initial_observation": "You are in a kitchen.",            # optional
     "steps": [{"action": "go to countertop 1", "observation": "You see a mug 1."}, ...]}

ALFWorld (the rows of ../shared/data/alfworld_dev): `id`, `conversations` = [{from, value}];
the first human turn is the initial observation ending in "Your task is to: …", then gpt
(action) and human (observation) alternate. An optional `reward` (default 1.0 for experts).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from ..errors import InputError, decode_line, numbered_lines, parse_json_text
from ..store.params import text_problem
from .models import KINDS, Kind, Step, Trajectory
from .normalize import collapse

Format = Literal["auto", "alfworld", "jsonl"]
FORMATS: tuple[Format, ...] = ("auto", "alfworld", "jsonl")
TASK_MARKER = "your task is to:"
MAX_TEXT = 20_000
"""Longest action, observation or task text (ALFWorld's longest turn is under 1,000)."""
ALFWORLD_METADATA = ("task_type", "task_desc", "pddl_params", "scene_num", "human_goal_descs")


def parse_file(path: Path, *, kind: Kind, fmt: Format = "auto") -> list[Trajectory]:
    source = str(path)
    lines = (decode_line(raw, source=source, line=n) for n, raw in numbered_lines(path))
    return parse_lines(lines, source=source, kind=kind, fmt=fmt)


def parse_lines(
    lines: Iterable[str], *, source: str, kind: Kind, fmt: Format = "auto"
) -> list[Trajectory]:
    if kind not in KINDS:
        raise InputError(f"unknown kind {kind!r}: use expert or exploration", field="kind")
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}: use {', '.join(FORMATS)}", field="format")
    found: list[Trajectory] = []
    seen: dict[str, int] = {}
    for number, record in _records(lines, source):
        style = fmt if fmt != "auto" else ("alfworld" if "conversations" in record else "jsonl")
        reader = from_alfworld if style == "alfworld" else from_jsonl
        trajectory = reader(record, kind=kind, source=source, line=number)
        if trajectory.id in seen:
            raise InputError(
                f"duplicate id {trajectory.id!r} (first on line {seen[trajectory.id]})",
                source=source,
                line=number,
                field="id",
            )
        seen[trajectory.id] = number
        found.append(trajectory)
    if not found:
        raise InputError("no trajectories in the file", source=source)
    return found


def _records(lines: Iterable[str], source: str) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        record = parse_json_text(line, source=source, line=number)
        if not isinstance(record, dict):
            raise InputError("expected a JSON object", source=source, line=number)
        yield number, record


class _Checker:
    """Field checks that name the file, line and field of the first problem."""

    def __init__(self, record: dict[str, Any], source: str | None, line: int | None) -> None:
        self.record = record
        self.source = source
        self.line = line

    def fail(self, message: str, field: str) -> InputError:
        return InputError(message, source=self.source, line=self.line, field=field)

    def text(self, value: Any, field: str, *, allow_empty: bool = False) -> str:
        if not isinstance(value, str):
            raise self.fail(f"expected a string, got {_kind(value)}", field)
        if not allow_empty and not value.strip():
            raise self.fail("must not be empty", field)
        if len(value) > MAX_TEXT:
            raise self.fail(f"longer than {MAX_TEXT} characters ({len(value)})", field)
        problem = text_problem(value)
        if problem is not None:
            raise self.fail(problem, field)
        return value

    def required(self, name: str) -> Any:
        if name not in self.record:
            raise self.fail("missing", name)
        return self.record[name]

    def reward(self, value: Any, field: str = "reward") -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(f"expected a number, got {_kind(value)}", field)
        reward = float(value)
        if not math.isfinite(reward) or not 0.0 <= reward <= 1.0:
            raise self.fail(f"must be between 0 and 1, got {value}", field)
        return reward


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def from_jsonl(
    record: dict[str, Any], *, kind: Kind, source: str | None = None, line: int | None = None
) -> Trajectory:
    check = _Checker(record, source, line)
    ident = check.text(check.required("id"), "id").strip()
    task = collapse(check.text(check.required("task"), "task"))
    reward = check.reward(check.required("reward"))
    raw_steps = check.required("steps")
    if not isinstance(raw_steps, list) or not raw_steps:
        raise check.fail("expected a non-empty list of {action, observation}", "steps")
    steps = []
    for i, raw in enumerate(raw_steps):
        if not isinstance(raw, dict):
            raise check.fail(f"expected an object, got {_kind(raw)}", f"steps[{i}]")
        if "action" not in raw:
            raise check.fail("missing", f"steps[{i}].action")
        if "observation" not in raw:
            raise check.fail("missing", f"steps[{i}].observation")
        action = check.text(raw["action"], f"steps[{i}].action")
        observation = check.text(raw["observation"], f"steps[{i}].observation", allow_empty=True)
        steps.append(Step(collapse(action), observation))
    initial = record.get("initial_observation", "")
    initial = check.text(initial, "initial_observation", allow_empty=True)
    metadata = record.get("metadata", {})
    if not isinstance(metadata, dict):
        raise check.fail(f"expected an object, got {_kind(metadata)}", "metadata")
    return Trajectory(ident, task, kind, reward, tuple(steps), initial, dict(metadata))


def from_alfworld(
    record: dict[str, Any], *, kind: Kind, source: str | None = None, line: int | None = None
) -> Trajectory:
    check = _Checker(record, source, line)
    ident = check.text(check.required("id"), "id").strip()
    turns = check.required("conversations")
    if not isinstance(turns, list) or len(turns) < 3:
        raise check.fail(
            "expected a list: the initial observation, then action/observation pairs",
            "conversations",
        )
    values: list[str] = []
    for i, turn in enumerate(turns):
        want = "human" if i % 2 == 0 else "gpt"
        if not isinstance(turn, dict):
            raise check.fail(f"expected an object, got {_kind(turn)}", f"conversations[{i}]")
        if turn.get("from") != want:
            raise check.fail(
                f"expected from={want!r} (turns alternate, starting with the human's "
                f"observation), got {turn.get('from')!r}",
                f"conversations[{i}].from",
            )
        allow_empty = want == "human" and i > 0
        values.append(
            check.text(turn.get("value"), f"conversations[{i}].value", allow_empty=allow_empty)
        )
    if len(values) % 2 == 0:
        raise check.fail(
            "the last action has no observation after it", f"conversations[{len(values) - 1}]"
        )
    first = values[0]
    at = first.lower().rfind(TASK_MARKER)
    if at < 0:
        raise check.fail("the first turn has no 'Your task is to: …'", "conversations[0].value")
    rest = first[at + len(TASK_MARKER) :].strip()
    task = collapse(rest.splitlines()[0]) if rest else ""
    if not task:
        raise check.fail("the task after 'Your task is to:' is empty", "conversations[0].value")
    steps = []
    for i in range(1, len(values) - 1, 2):
        action = _action_of(values[i])
        if not action:
            raise check.fail("the action is empty", f"conversations[{i}].value")
        steps.append(Step(action, values[i + 1]))
    if "reward" in record:
        reward = check.reward(record["reward"])
    elif kind == "expert":
        reward = 1.0
    else:
        raise check.fail("missing (exploration trajectories need their reward)", "reward")
    metadata = {k: record[k] for k in ALFWORLD_METADATA if k in record}
    return Trajectory(ident, task, kind, reward, tuple(steps), first[:at].strip(), metadata)


def _action_of(value: str) -> str:
    """ReAct-style turns ("Thought: … Action: go to desk 1") keep only the action."""
    marker = value.rfind("Action:")
    return collapse(value[marker + len("Action:") :] if marker >= 0 else value)


def validate_trajectory(trajectory: Trajectory, *, source: str = "<api>") -> Trajectory:
    """The checks a file gets, for a Trajectory built in Python."""
    record = {
        "id": trajectory.id,
        "task": trajectory.task,
        "reward": trajectory.reward,
        "initial_observation": trajectory.initial_observation,
        "metadata": trajectory.metadata,
        "steps": [{"action": s.action, "observation": s.observation} for s in trajectory.steps],
    }
    if trajectory.kind not in KINDS:
        raise InputError(
            f"unknown kind {trajectory.kind!r}: use expert or exploration",
            source=source,
            field="kind",
        )
    return from_jsonl(record, kind=trajectory.kind, source=source)
