"""One root exception; every layer raises a subclass, only the CLI turns them into exit codes.

Also the one way input files are read line by line, so that a bad line (invalid UTF-8,
malformed JSON) is an InputError naming its file and line.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar


class GraphMemError(Exception):
    """Root of every error graphmem raises on purpose."""

    exit_code = 1


class ConfigError(GraphMemError):
    """A setting is missing or malformed (bad URI, unknown engine, bad value)."""

    exit_code = 2


class EngineUnavailable(GraphMemError):
    """The graph engine cannot be reached or started."""

    exit_code = 3


class AuthenticationFailed(GraphMemError):
    """The engine refused the credentials."""

    exit_code = 3


class PortInUse(EngineUnavailable):
    """The embedded server's port is held by another process."""


class QueryError(GraphMemError):
    """The engine rejected a query (a bug in a .cypher file, or a schema conflict)."""


class IndexUnavailable(QueryError):
    """A vector index cannot answer right now (FalkorDB rebuilding it); nearest() scans the
    space exactly instead."""


class QueryNotFound(GraphMemError):
    """No .cypher file exists for a query name on this engine."""


class SchemaMismatch(GraphMemError):
    """The graph was built with another embedding model or dimension, or a newer schema."""

    exit_code = 4


class UnknownSpace(GraphMemError):
    """A read named a space that holds no memory."""

    exit_code = 5


class NotFound(GraphMemError):
    """A named record (turn, unit, insight, task, trajectory) does not exist in the space."""

    exit_code = 5


class Forbidden(GraphMemError):
    """The caller's API key does not allow this: another space, or a write with a read-only
    key (`graphmem serve`)."""

    exit_code = 8


class InputError(GraphMemError):
    """Bad user input; names where it was found so the user can fix it."""

    exit_code = 6

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        # User text can hold what no terminal prints (a lone surrogate from a "\ud800"
        # escape): the message must always print, so such characters are escaped.
        message = _printable(message)
        field = _printable(field) if field is not None else None
        self.reason = message
        self.source = source
        self.line = line
        self.field = field
        where = []
        if source is not None:
            where.append(source if line is None else f"{source}:{line}")
        if field is not None:
            where.append(f"field '{field}'")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)


def _printable(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


class LLMError(GraphMemError):
    """The LLM endpoint failed or kept returning output that does not validate."""

    exit_code = 7


# --- reading input files ---------------------------------------------------------------------


def numbered_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """Every line of a file with its number (from 1), undecoded, blank ones included."""
    try:
        handle = path.open("rb")
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", source=str(path)) from e
    with handle:
        yield from enumerate(handle, start=1)


def decode_line(raw: bytes, *, source: str, line: int) -> str:
    """UTF-8 text of one line (a byte-order mark on line 1 is dropped)."""
    try:
        return raw.decode("utf-8-sig" if line == 1 else "utf-8")
    except UnicodeDecodeError as e:
        raise InputError(
            f"not valid UTF-8 ({e.reason} at byte {e.start + 1})", source=source, line=line
        ) from e


def parse_json_line(raw: bytes, *, source: str, line: int) -> Any:
    """The JSON value on one line."""
    return parse_json_text(decode_line(raw, source=source, line=line), source=source, line=line)


def parse_json_text(text: str, *, source: str, line: int) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(
            f"malformed JSON: {e.msg} (column {e.colno})", source=source, line=line
        ) from e
    except RecursionError as e:
        raise InputError("malformed JSON: nested too deeply", source=source, line=line) from e


def jsonl_records(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, JSON value) of every non-blank line; the first bad line raises."""
    source = str(path)
    for number, raw in numbered_lines(path):
        if raw.strip():
            yield number, parse_json_line(raw, source=source, line=number)


T = TypeVar("T")
R = TypeVar("R")


@dataclasses.dataclass
class Refused:
    """The lines `--skip-invalid` left out of a file, each with its error."""

    source: str
    errors: list[InputError] = dataclasses.field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "skipped": len(self.errors),
            "invalid": [{"line": e.line, "field": e.field, "error": e.reason} for e in self.errors],
        }

    def summary(self) -> str:
        return f"skipped {len(self.errors)} invalid line(s) of {self.source}"


def collect_valid(
    path: Path, parse: Callable[[int, Any], T], refused: Refused
) -> list[tuple[int, T]]:
    """For `--skip-invalid`: (line, item) for every line `parse(line_number, json_value)`
    accepts; the InputError of every line it (or the JSON decoding) refused goes to
    `refused`."""
    source = str(path)
    good: list[tuple[int, T]] = []
    for number, raw in numbered_lines(path):
        if not raw.strip():
            continue
        try:
            good.append((number, parse(number, parse_json_line(raw, source=source, line=number))))
        except InputError as e:
            refused.errors.append(e)
    return good


def without_refused_lines(
    items: list[tuple[int, T]], run: Callable[[list[T]], R], refused: Refused
) -> R:
    """For `--skip-invalid`: `run(items)`; when it refuses one of the lines (an InputError
    naming it, raised before anything is written, as every layer checks its whole input
    first) that line is dropped, noted in `refused`, and the rest run again."""
    remaining = list(items)
    while remaining:
        try:
            return run([item for _, item in remaining])
        except InputError as e:
            if e.line is None or e.line not in {n for n, _ in remaining}:
                raise
            refused.errors.append(e)
            remaining = [(n, item) for n, item in remaining if n != e.line]
    first = f"; the first: {refused.errors[0]}" if refused.errors else ""
    raise InputError(f"no valid line ({len(refused.errors)} skipped{first})", source=refused.source)
