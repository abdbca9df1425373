"""Reading a chat log: JSONL lines of turns, agent steps and at most one outcome, each
checked with its file, line and field named (the format is in chatlog/__init__.py)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..conversation.models import TurnInput
from ..conversation.readers import parse_turn_row
from ..errors import InputError

Outcome = Literal["resolved", "failed"]
MAX_ID = 200


@dataclass(frozen=True)
class ChatStep:
    action: str
    observation: str
    line: int | None = None


@dataclass(frozen=True)
class ChatOutcome:
    outcome: Outcome
    task_id: str | None = None
    query: str | None = None
    reward: float | None = None
    answer: str | None = None
    feedback: str | None = None
    line: int | None = None
    task_type: str | None = None


@dataclass(frozen=True)
class ChatLog:
    source: str
    session: str
    turns: tuple[TurnInput, ...]
    steps: tuple[ChatStep, ...] = ()
    outcome: ChatOutcome | None = None


_TURN_KEYS = ("text", "content")
_OUTCOME_KEYS = frozenset(
    {"outcome", "task_id", "query", "reward", "answer", "feedback", "task_type"}
)


def kind_of(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _alias(row: dict[str, Any], names: tuple[str, str], *, source: str, line: int) -> Any:
    """The value under one of two synonymous keys (giving both is an error)."""
    present = [n for n in names if n in row]
    if len(present) > 1:
        raise InputError(
            f"give either '{names[0]}' or '{names[1]}', not both",
            source=source,
            line=line,
            field=names[1],
        )
    if not present:
        raise InputError(
            f"missing (a turn needs '{names[0]}' or '{names[1]}')",
            source=source,
            line=line,
            field=names[0],
        )
    return row[present[0]]


def session_name(value: Any, *, source: str, line: int | None = None) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError("must be a non-empty string", source=source, line=line, field="session")
    if len(value) > MAX_ID:
        raise InputError(
            f"longer than {MAX_ID} characters", source=source, line=line, field="session"
        )
    return value.strip()


def parse_turn(
    row: Mapping[str, Any], *, session: str, default_id: str, source: str, line: int
) -> TurnInput:
    """A turn line (or API dict): `role`/`content` are accepted for `speaker`/`text`; session
    and turn_id get defaults; then the conversation layer's own checks apply."""
    data = dict(row)
    speaker = _alias(data, ("speaker", "role"), source=source, line=line)
    text = _alias(data, ("text", "content"), source=source, line=line)
    for key in ("speaker", "role", "text", "content"):
        data.pop(key, None)
    data["speaker"], data["text"] = speaker, text
    data.setdefault("session", session)
    data.setdefault("turn_id", default_id)
    return parse_turn_row(data, source=source, line=line)


def _step(row: dict[str, Any], *, source: str, line: int) -> ChatStep:
    extra = sorted(set(row) - {"action", "observation"})
    if extra:
        raise InputError(
            "a step line has only 'action' and 'observation'",
            source=source,
            line=line,
            field=extra[0],
        )
    values = []
    for name in ("action", "observation"):
        if name not in row:
            raise InputError("missing", source=source, line=line, field=name)
        value = row[name]
        if not isinstance(value, str):
            raise InputError(
                f"expected a string, got {kind_of(value)}", source=source, line=line, field=name
            )
        if name == "action" and not value.strip():
            raise InputError("must not be empty", source=source, line=line, field=name)
        values.append(value.strip())
    return ChatStep(values[0], values[1], line)


def _outcome(row: dict[str, Any], *, source: str, line: int) -> ChatOutcome:
    extra = sorted(set(row) - _OUTCOME_KEYS)
    if extra:
        raise InputError(
            f"unknown field (an outcome line has {', '.join(sorted(_OUTCOME_KEYS))})",
            source=source,
            line=line,
            field=extra[0],
        )
    outcome = row["outcome"]
    if outcome not in ("resolved", "failed"):
        raise InputError(
            f"expected 'resolved' or 'failed', got {outcome!r}",
            source=source,
            line=line,
            field="outcome",
        )
    texts: dict[str, str | None] = {}
    for name in ("task_id", "query", "answer", "feedback", "task_type"):
        value = row.get(name)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise InputError(
                f"expected a non-empty string, got {kind_of(value)}",
                source=source,
                line=line,
                field=name,
            )
        texts[name] = value
    return ChatOutcome(
        outcome=outcome,
        task_id=texts["task_id"],
        query=texts["query"],
        reward=check_reward(row.get("reward"), source=source, line=line),
        answer=texts["answer"],
        feedback=texts["feedback"],
        line=line,
        task_type=texts["task_type"],
    )


def check_reward(value: Any, *, source: str | None = None, line: int | None = None) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise InputError(
            f"expected a number between 0 and 1, got {value!r}",
            source=source,
            line=line,
            field="reward",
        )
    return float(value)


def parse_chat_log(lines: Iterable[str], *, source: str, session: str) -> ChatLog:
    """Every line checked; the first problem is an InputError naming source, line and field."""
    session = session_name(session, source=source)
    turns: list[TurnInput] = []
    steps: list[ChatStep] = []
    outcome: ChatOutcome | None = None
    seen: dict[str, int] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except json.JSONDecodeError as e:
            raise InputError(f"malformed JSON: {e.msg}", source=source, line=number) from e
        if not isinstance(row, dict):
            raise InputError(
                f"expected a JSON object, got {kind_of(row)}", source=source, line=number
            )
        kinds = [
            kind
            for kind, present in (
                ("turn", any(k in row for k in _TURN_KEYS)),
                ("step", "action" in row),
                ("outcome", "outcome" in row),
            )
            if present
        ]
        if len(kinds) != 1:
            raise InputError(
                "a line is a turn (speaker, text), a step (action, observation) or an outcome"
                + (f"; this one looks like {' and '.join(kinds)}" if kinds else ""),
                source=source,
                line=number,
            )
        if kinds[0] == "step":
            steps.append(_step(row, source=source, line=number))
        elif kinds[0] == "outcome":
            if outcome is not None:
                raise InputError(
                    f"a second outcome line (the first is line {outcome.line})",
                    source=source,
                    line=number,
                    field="outcome",
                )
            outcome = _outcome(row, source=source, line=number)
        else:
            turn = parse_turn(
                row,
                session=session,
                default_id=f"{session}#{len(turns) + 1}",
                source=source,
                line=number,
            )
            if turn.turn_id in seen:
                raise InputError(
                    f"duplicate turn_id {turn.turn_id!r} (first on line {seen[turn.turn_id]})",
                    source=source,
                    line=number,
                    field="turn_id",
                )
            seen[turn.turn_id] = number
            turns.append(turn)
    if not turns:
        raise InputError("no turns in the chat log", source=source)
    return ChatLog(source, session, tuple(turns), tuple(steps), outcome)


def read_chat_log(path: Path, *, session: str | None = None) -> ChatLog:
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", source=source) from e
    except UnicodeDecodeError as e:
        raise InputError(f"not valid UTF-8: {e.reason}", source=source) from e
    return parse_chat_log(text.splitlines(), source=source, session=session or path.stem)


def merge_outcome(base: ChatOutcome | None, overrides: Mapping[str, Any]) -> ChatOutcome | None:
    """The file's outcome line with command-line values on top (None values are not given)."""
    given = {k: v for k, v in overrides.items() if v is not None}
    if base is None and not given:
        return None
    if base is None and "outcome" not in given:
        raise InputError(
            "--task-id, --query, --reward, --answer and --feedback need an outcome "
            "(--outcome resolved|failed, or an outcome line in the log)",
            field="outcome",
        )
    data: dict[str, Any] = {}
    if base is not None:
        data = {
            "outcome": base.outcome,
            "task_id": base.task_id,
            "query": base.query,
            "reward": base.reward,
            "answer": base.answer,
            "feedback": base.feedback,
            "task_type": base.task_type,
        }
    data.update(given)
    clean = {k: v for k, v in data.items() if v is not None}
    line = base.line if base is not None and base.line is not None else 0
    return _outcome(clean, source="options", line=line)
