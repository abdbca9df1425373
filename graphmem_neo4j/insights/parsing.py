"""Reading task files (`graphmem tasks record FILE.jsonl`): one task a line, checked strictly.

A line is {"id": str, "query": str, "status": "resolved"|"failed",
"steps": [{"role"?: str, "action": str, "observation": str}], "answer"?: str, "feedback"?: str}.
Every problem is an InputError naming the file, the line and the field; a file with any bad
line is refused as a whole, so nothing from it is stored.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError, jsonl_records
from ..store.params import text_problem
from .models import STATUSES, Status, Step, TaskRecord

TASK_FIELDS = frozenset({"id", "query", "status", "steps", "answer", "feedback", "task_type"})
STEP_FIELDS = frozenset({"role", "action", "observation"})
MAX_TEXT = 20_000
# Ids reach the graph as parameters only, but they also name things in commands and logs:
# keep them to a plain alphabet (this also refuses Cypher-looking ids such as "x'}) DELETE").
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/#@+=\-]{0,255}$")


def check_id(
    value: Any, *, field: str = "id", source: str | None = None, line: int | None = None
) -> str:
    if not isinstance(value, str):
        raise InputError(
            f"expected a string, got {_kind(value)}", source=source, line=line, field=field
        )
    if not _ID.match(value):
        raise InputError(
            f"invalid id {value[:80]!r}: use 1-256 letters, digits and _ . : / # @ + = -, "
            "starting with a letter or digit",
            source=source,
            line=line,
            field=field,
        )
    return value


def check_text(
    value: Any,
    *,
    field: str,
    source: str | None = None,
    line: int | None = None,
    allow_empty: bool = False,
) -> str:
    if not isinstance(value, str):
        raise InputError(
            f"expected a string, got {_kind(value)}", source=source, line=line, field=field
        )
    if not allow_empty and not value.strip():
        raise InputError("must not be empty", source=source, line=line, field=field)
    if len(value) > MAX_TEXT:
        raise InputError(
            f"longer than {MAX_TEXT} characters", source=source, line=line, field=field
        )
    problem = text_problem(value)
    if problem is not None:
        raise InputError(problem, source=source, line=line, field=field)
    return value


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _optional_text(
    data: dict[str, Any], key: str, source: str | None, line: int | None
) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    return check_text(value, field=key, source=source, line=line, allow_empty=True)


def task_from_dict(data: Any, *, source: str | None = None, line: int | None = None) -> TaskRecord:
    """A TaskRecord from one decoded JSON line, or an InputError saying what is wrong."""
    if not isinstance(data, dict):
        raise InputError(f"expected a JSON object, got {_kind(data)}", source=source, line=line)
    unknown = sorted(set(data) - TASK_FIELDS)
    if unknown:
        raise InputError(
            f"unknown field (expected {', '.join(sorted(TASK_FIELDS))})",
            source=source,
            line=line,
            field=unknown[0],
        )
    for key in ("id", "query", "status", "steps"):
        if key not in data:
            raise InputError("missing", source=source, line=line, field=key)
    task_id = check_id(data["id"], source=source, line=line)
    query = check_text(data["query"], field="query", source=source, line=line)
    status = data["status"]
    if not isinstance(status, str) or status.lower() not in STATUSES:
        raise InputError(
            f"expected 'resolved' or 'failed', got {status!r}",
            source=source,
            line=line,
            field="status",
        )
    steps_raw = data["steps"]
    if not isinstance(steps_raw, list):
        raise InputError(
            f"expected a list, got {_kind(steps_raw)}", source=source, line=line, field="steps"
        )
    steps = tuple(_step(raw, f"steps[{n}]", source, line) for n, raw in enumerate(steps_raw))
    normalised: Status = "resolved" if status.lower() == "resolved" else "failed"
    return TaskRecord(
        id=task_id,
        query=query,
        status=normalised,
        steps=steps,
        answer=_optional_text(data, "answer", source, line),
        feedback=_optional_text(data, "feedback", source, line),
        task_type=_optional_text(data, "task_type", source, line) or None,
    )


def _step(raw: Any, where: str, source: str | None, line: int | None) -> Step:
    if not isinstance(raw, dict):
        raise InputError(
            f"expected an object, got {_kind(raw)}", source=source, line=line, field=where
        )
    unknown = sorted(set(raw) - STEP_FIELDS)
    if unknown:
        raise InputError(
            "unknown field (expected role, action, observation)",
            source=source,
            line=line,
            field=f"{where}.{unknown[0]}",
        )
    for key in ("action", "observation"):
        if key not in raw:
            raise InputError("missing", source=source, line=line, field=f"{where}.{key}")
    role = raw.get("role", "agent")
    return Step(
        role=check_text(role, field=f"{where}.role", source=source, line=line),
        action=check_text(raw["action"], field=f"{where}.action", source=source, line=line),
        observation=check_text(
            raw["observation"],
            field=f"{where}.observation",
            source=source,
            line=line,
            allow_empty=True,
        ),
    )


def validate_task(task: TaskRecord) -> TaskRecord:
    """Check a TaskRecord built in Python by the same rules as a file line."""
    if not isinstance(task, TaskRecord):
        raise InputError(f"expected a TaskRecord, got {_kind(task)}")
    if not isinstance(task.steps, (tuple, list)):
        raise InputError(f"expected a sequence of Step, got {_kind(task.steps)}", field="steps")
    data = asdict(task)
    data["steps"] = list(data["steps"])
    return task_from_dict(data)


@dataclass(frozen=True)
class TaskFile:
    source: str
    tasks: tuple[TaskRecord, ...]
    lines: dict[str, int]
    """Line of each task id, for errors found later (e.g. a conflict with a stored task)."""


def read_tasks(path: Path) -> TaskFile:
    """Every task of a JSONL file, in order; a repeated id must repeat the same task."""
    source = str(path)
    tasks: list[TaskRecord] = []
    seen: dict[str, tuple[int, str]] = {}
    for number, data in jsonl_records(path):
        task = task_from_dict(data, source=source, line=number)
        digest = task.content_hash()
        if task.id in seen:
            first_line, first_digest = seen[task.id]
            if first_digest != digest:
                raise InputError(
                    f"task {task.id!r} appears on line {first_line} with other content",
                    source=source,
                    line=number,
                    field="id",
                )
            continue
        seen[task.id] = (number, digest)
        tasks.append(task)
    if not tasks:
        raise InputError("no tasks in the file", source=source)
    return TaskFile(source, tuple(tasks), {task_id: line for task_id, (line, _) in seen.items()})
