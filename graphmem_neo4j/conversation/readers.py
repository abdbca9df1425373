"""Reading conversations from files: the generic JSONL format, LoCoMo's JSON and
LongMemEval's JSON.

Readers validate everything before anything is written: a bad row stops the whole file with
an InputError naming the file, the line (JSONL) or record path (LoCoMo, LongMemEval), and the
field.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import InputError, jsonl_records
from ..spaces import validate_space
from ..store.params import text_problem
from .models import TurnInput
from .text import parse_iso, parse_locomo_time, parse_longmemeval_time

InputFormat = Literal["jsonl", "locomo", "longmemeval"]
FORMATS: tuple[InputFormat, ...] = ("jsonl", "locomo", "longmemeval")
REQUIRED = ("session", "turn_id", "speaker", "text")
MAX_TEXT = 20_000
MAX_LONGMEMEVAL_TEXT = 200_000
"""LongMemEval's haystacks hold chat-assistant sessions whose answers (code, long lists) can
run past MAX_TEXT; refusing one of them would refuse the whole file."""
MAX_ID = 200


def _string(value: Any, name: str, *, source: str, line: int | None, limit: int) -> str:
    if not isinstance(value, str):
        raise InputError(
            f"expected a string, got {type(value).__name__}", source=source, line=line, field=name
        )
    text = value.strip()
    if not text:
        raise InputError("must not be empty", source=source, line=line, field=name)
    problem = text_problem(text)
    if problem is not None:
        raise InputError(problem, source=source, line=line, field=name)
    if len(text) > limit:
        raise InputError(
            f"longer than {limit} characters ({len(text)})", source=source, line=line, field=name
        )
    return text


def parse_turn_row(row: Any, *, source: str, line: int | None) -> TurnInput:
    """One JSONL object → TurnInput; unknown keys become metadata."""
    if not isinstance(row, dict):
        raise InputError(
            f"expected a JSON object, got {type(row).__name__}", source=source, line=line
        )
    for key in REQUIRED:
        if key not in row:
            raise InputError("missing required field", source=source, line=line, field=key)
    session = _string(row["session"], "session", source=source, line=line, limit=MAX_ID)
    turn_id = _string(row["turn_id"], "turn_id", source=source, line=line, limit=MAX_ID)
    speaker = _string(row["speaker"], "speaker", source=source, line=line, limit=MAX_ID)
    text = _string(row["text"], "text", source=source, line=line, limit=MAX_TEXT)
    stamp = row.get("timestamp")
    timestamp: int | None = None
    if stamp is not None:
        if not isinstance(stamp, str):
            raise InputError(
                f"expected an ISO-8601 string or null, got {type(stamp).__name__}",
                source=source,
                line=line,
                field="timestamp",
            )
        try:
            timestamp = parse_iso(stamp)
        except ValueError as e:
            raise InputError(
                f"not an ISO-8601 date-time: {stamp!r}", source=source, line=line, field="timestamp"
            ) from e
    metadata = {k: v for k, v in row.items() if k not in (*REQUIRED, "timestamp")}
    for key, value in metadata.items():
        # kept as JSON text (metadata_json): it must encode, and NaN/Infinity are not JSON
        try:
            json.dumps({key: value}, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except ValueError as e:  # UnicodeEncodeError is a ValueError
            reason = (
                "not valid Unicode text"
                if isinstance(e, UnicodeEncodeError)
                else "NaN or Infinity, which JSON metadata cannot hold"
            )
            raise InputError(
                f"cannot be kept as metadata: {reason}",
                source=source,
                line=line,
                field=key if text_problem(key) is None else ascii(key),
            ) from e
    return TurnInput(
        session=session,
        turn_id=turn_id,
        speaker=speaker,
        text=text,
        timestamp=timestamp,
        metadata=metadata,
        source=source,
        line=line,
    )


def read_jsonl(path: Path) -> list[TurnInput]:
    """Every turn of a JSONL file, validated; blank lines are skipped."""
    source = str(path)
    turns: list[TurnInput] = []
    first_line: dict[str, int] = {}
    for number, row in jsonl_records(path):
        turn = parse_turn_row(row, source=source, line=number)
        if turn.turn_id in first_line:
            raise InputError(
                f"duplicate turn_id {turn.turn_id!r} (first on line {first_line[turn.turn_id]})",
                source=source,
                line=number,
                field="turn_id",
            )
        first_line[turn.turn_id] = number
        turns.append(turn)
    if not turns:
        raise InputError("no turns in file", source=source)
    return turns


_SESSION_KEY = re.compile(r"^session_(\d+)$")


def _json_file(path: Path) -> Any:
    source = str(path)
    try:
        raw = path.read_bytes()
        return json.loads(raw.decode("utf-8-sig"))
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", source=source) from e
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise InputError(f"not valid UTF-8: {e.reason}", source=source, line=line) from e
    except json.JSONDecodeError as e:
        raise InputError(f"malformed JSON: {e.msg}", source=source, line=e.lineno) from e


def read_locomo(path: Path, *, space: str | None = None) -> list[tuple[str, list[TurnInput]]]:
    """LoCoMo records → (space, turns) per record: the record's `sample_id` is its space
    unless `space` is given; dia_ids become turn ids; `session_N_date_time` becomes every
    turn's timestamp; a shared image's caption is kept in the text as "[image: …]"."""
    source = str(path)
    data = _json_file(path)
    records = data if isinstance(data, list) else [data]
    out: dict[str, list[TurnInput]] = {}
    for index, record in enumerate(records):
        where = f"[{index}]"
        if not isinstance(record, dict) or not isinstance(record.get("conversation"), dict):
            raise InputError(
                "a LoCoMo record needs a 'conversation' object", source=source, field=where
            )
        target = space
        if target is None:
            sample = record.get("sample_id")
            if not isinstance(sample, str):
                raise InputError(
                    "missing 'sample_id' (or pass --space)",
                    source=source,
                    field=f"{where}.sample_id",
                )
            target = sample
        validate_space(target, source=source)
        out.setdefault(target, []).extend(_locomo_turns(record["conversation"], source, where))
    if not any(out.values()):
        raise InputError("no turns in file", source=source)
    return list(out.items())


def _locomo_turns(conversation: dict[str, Any], source: str, where: str) -> list[TurnInput]:
    sessions = sorted(
        (int(m.group(1)), key)
        for key in conversation
        if (m := _SESSION_KEY.match(key)) and isinstance(conversation[key], list)
    )
    turns: list[TurnInput] = []
    for number, key in sessions:
        stamp_text = conversation.get(f"{key}_date_time")
        timestamp = None
        if stamp_text is not None:
            try:
                timestamp = parse_locomo_time(str(stamp_text))
            except ValueError as e:
                raise InputError(
                    str(e), source=source, field=f"{where}.conversation.{key}_date_time"
                ) from e
        for i, row in enumerate(conversation[key]):
            path = f"{where}.conversation.{key}[{i}]"
            if not isinstance(row, dict):
                raise InputError("expected an object", source=source, field=path)
            for name in ("dia_id", "speaker", "text"):
                if name not in row:
                    raise InputError(
                        "missing required field", source=source, field=f"{path}.{name}"
                    )
            text = _string(row["text"], f"{path}.text", source=source, line=None, limit=MAX_TEXT)
            caption = row.get("blip_caption")
            if isinstance(caption, str) and caption.strip():
                text = f"{text} [image: {caption.strip()}]"
            metadata = {
                k: v for k, v in row.items() if k not in ("dia_id", "speaker", "text", "session")
            }
            metadata["session_date_time"] = stamp_text
            turns.append(
                TurnInput(
                    session=f"session_{number}",
                    turn_id=_string(
                        row["dia_id"], f"{path}.dia_id", source=source, line=None, limit=MAX_ID
                    ),
                    speaker=_string(
                        row["speaker"], f"{path}.speaker", source=source, line=None, limit=MAX_ID
                    ),
                    text=text,
                    timestamp=timestamp,
                    metadata=metadata,
                    source=source,
                )
            )
    return turns


def read_longmemeval(path: Path, *, space: str | None = None) -> list[tuple[str, list[TurnInput]]]:
    """LongMemEval instances → (space, turns) per instance: each instance's `question_id` is
    its space (its haystack is its own history) unless `space` is given; a session's turns
    are `<session id>:<index>`, spoken by `user` or `assistant`, stamped with the session's
    date; a turn's `has_answer` is kept in its metadata. With `space`, all haystacks go into
    that one space. A session read again into the same space (LongMemEval's haystacks share
    sessions) is kept once; the same session id with other turns is refused."""
    source = str(path)
    records = _json_file(path)
    if not isinstance(records, list):
        raise InputError("a LongMemEval file is a JSON list of instances", source=source)
    out: dict[str, list[TurnInput]] = {}
    # (space, session id) → where it was first read, and its turns
    seen: dict[tuple[str, str], tuple[str, list[tuple[str, str]]]] = {}
    for index, record in enumerate(records):
        where = f"[{index}]"
        if not isinstance(record, dict):
            raise InputError("expected an object", source=source, field=where)
        fields = ("question_id", "haystack_session_ids", "haystack_dates", "haystack_sessions")
        for name in fields:
            if name not in record:
                raise InputError("missing required field", source=source, field=f"{where}.{name}")
        ids, dates, sessions = (record[name] for name in fields[1:])
        if not (isinstance(ids, list) and isinstance(dates, list) and isinstance(sessions, list)):
            raise InputError(
                "haystack_session_ids, haystack_dates and haystack_sessions must be lists",
                source=source,
                field=where,
            )
        if not len(ids) == len(dates) == len(sessions):
            raise InputError(
                f"{len(ids)} session ids, {len(dates)} dates and {len(sessions)} sessions: "
                "the three lists must be as long",
                source=source,
                field=where,
            )
        target = space
        if target is None:
            target = _string(
                record["question_id"],
                f"{where}.question_id",
                source=source,
                line=None,
                limit=MAX_ID,
            )
            validate_space(target, source=source)
        turns = out.setdefault(target, [])
        for s, (session_id, date, session) in enumerate(zip(ids, dates, sessions, strict=True)):
            at = f"{where}.haystack_sessions[{s}]"
            sid = _string(
                session_id,
                f"{where}.haystack_session_ids[{s}]",
                source=source,
                line=None,
                limit=MAX_ID,
            )
            read = _longmemeval_session(sid, date, session, source, where, s)
            said = [(t.speaker, t.text) for t in read]
            first, known = seen.setdefault((target, sid), (at, said))
            if first != at:
                if known != said:
                    raise InputError(
                        f"session {sid!r} differs from the one read at {first}",
                        source=source,
                        field=at,
                    )
                continue
            turns.extend(read)
    if not any(out.values()):
        raise InputError("no turns in file", source=source)
    return list(out.items())


def _longmemeval_session(
    session_id: str, date: Any, session: Any, source: str, where: str, index: int
) -> list[TurnInput]:
    at = f"{where}.haystack_sessions[{index}]"
    if not isinstance(session, list):
        raise InputError("a session is a list of turns", source=source, field=at)
    try:
        timestamp = parse_longmemeval_time(str(date))
    except ValueError as e:
        raise InputError(str(e), source=source, field=f"{where}.haystack_dates[{index}]") from e
    turns = []
    for i, row in enumerate(session):
        path = f"{at}[{i}]"
        if not isinstance(row, dict):
            raise InputError("expected an object", source=source, field=path)
        for name in ("role", "content"):
            if name not in row:
                raise InputError("missing required field", source=source, field=f"{path}.{name}")
        if isinstance(row["content"], str) and not row["content"].strip():
            continue  # an empty message holds nothing to remember; the others keep their index
        metadata = {k: v for k, v in row.items() if k not in ("role", "content")}
        metadata["session_date"] = date
        turns.append(
            TurnInput(
                session=session_id,
                turn_id=f"{session_id}:{i}",
                speaker=_string(
                    row["role"], f"{path}.role", source=source, line=None, limit=MAX_ID
                ),
                text=_string(
                    row["content"],
                    f"{path}.content",
                    source=source,
                    line=None,
                    limit=MAX_LONGMEMEVAL_TEXT,
                ),
                timestamp=timestamp,
                metadata=metadata,
                source=source,
            )
        )
    return turns


def read_turns(
    path: Path, fmt: InputFormat, *, space: str | None
) -> list[tuple[str | None, list[TurnInput]]]:
    """(space or None for "the caller's default", turns) groups of a file."""
    if fmt == "jsonl":
        return [(space, read_jsonl(path))]
    if fmt == "locomo":
        return [(name, turns) for name, turns in read_locomo(path, space=space)]
    if fmt == "longmemeval":
        return [(name, turns) for name, turns in read_longmemeval(path, space=space)]
    raise InputError(f"unknown format {fmt!r}: use {', '.join(FORMATS)}", field="format")


@dataclass(frozen=True)
class QueryRow:
    """One line of a batch search file."""

    id: str
    query: str
    space: str | None = None


def parse_query_rows(path: Path) -> list[QueryRow]:
    """A batch search file: one {"id": str, "query": str, "space"?: str} per line."""
    source = str(path)
    rows: list[QueryRow] = []
    for number, data in jsonl_records(path):
        if not isinstance(data, dict):
            raise InputError("expected a JSON object", source=source, line=number)
        for name in ("id", "query"):
            value = data.get(name)
            if not isinstance(value, str) or not value.strip():
                raise InputError(
                    "must be a non-empty string", source=source, line=number, field=name
                )
            problem = text_problem(value)
            if problem is not None:
                raise InputError(problem, source=source, line=number, field=name)
        space = data.get("space")
        if space is not None:
            validate_space(space, source=source, line=number)
        rows.append(QueryRow(id=data["id"], query=data["query"], space=space))
    if not rows:
        raise InputError("no queries in file", source=source)
    return rows
