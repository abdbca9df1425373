"""Plain dicts from the Python API and the MCP server as the layers' typed inputs, with the
same checks as the files (errors name the source, the item's number and the field)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from ..conversation.models import TurnInput
from ..errors import InputError
from ..experience.models import Kind, Trajectory
from ..experience.parsing import from_jsonl
from ..insights.models import TaskRecord
from ..insights.parsing import task_from_dict
from .parsing import kind_of, parse_turn


def turns_from(
    items: Iterable[TurnInput | Mapping[str, Any]],
    *,
    session: str = "default",
    source: str = "input",
) -> list[TurnInput]:
    """TurnInputs from TurnInputs or dicts. A dict without `turn_id` gets one derived from its
    session, speaker, text and timestamp (so sending it again stores it once)."""
    out: list[TurnInput] = []
    used: dict[str, int] = {}
    for number, item in enumerate(items, start=1):
        if isinstance(item, TurnInput):
            out.append(item)
            continue
        if not isinstance(item, Mapping):
            raise InputError(
                f"expected a turn object, got {kind_of(item)}", source=source, line=number
            )
        own_session = item.get("session", session)
        digest = hashlib.sha256(
            json.dumps(
                [
                    own_session,
                    item.get("speaker", item.get("role")),
                    item.get("text", item.get("content")),
                    item.get("timestamp"),
                ],
                default=str,
            ).encode()
        ).hexdigest()[:16]
        base = f"{own_session}:{digest}"
        used[base] = used.get(base, 0) + 1
        default_id = base if used[base] == 1 else f"{base}-{used[base]}"
        out.append(
            parse_turn(item, session=session, default_id=default_id, source=source, line=number)
        )
    if not out:
        raise InputError("no turns given", source=source)
    return out


def task_from(item: TaskRecord | Mapping[str, Any], *, source: str = "input") -> TaskRecord:
    if isinstance(item, TaskRecord):
        return item
    if not isinstance(item, Mapping):
        raise InputError(f"expected a task object, got {kind_of(item)}", source=source)
    data = dict(item)
    data.setdefault("steps", [])
    return task_from_dict(data, source=source)


def trajectory_from(
    item: Trajectory | Mapping[str, Any], *, kind: Kind | None = None, source: str = "input"
) -> Trajectory:
    if isinstance(item, Trajectory):
        return item
    if not isinstance(item, Mapping):
        raise InputError(f"expected a trajectory object, got {kind_of(item)}", source=source)
    data = dict(item)
    chosen = kind or data.pop("kind", None)
    data.pop("kind", None)
    if chosen not in ("expert", "exploration"):
        raise InputError(
            f"expected 'expert' or 'exploration', got {chosen!r}", source=source, field="kind"
        )
    return from_jsonl(data, kind=chosen, source=source)
