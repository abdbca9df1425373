"""Query parameters an engine would mangle are refused before they are sent, naming the value.

Parameters never become query text on Neo4j (Bolt sends them typed). The FalkorDB client,
though, serialises them into a `CYPHER name=value ...` text header in front of the query, and
some values do not survive that: a NUL character ends the command early (a syntax error, or
worse, a different value), NaN and ±infinity print as `nan`/`inf` (not Cypher literals), an
integer beyond 64 bits is silently clamped to 2**63 - 1, and a map key holding a backtick
cannot be quoted. A lone UTF-16 surrogate (which `json.loads` accepts from a `\\ud800` escape)
cannot be encoded for either engine. Checked here once, for every query of both stores.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..errors import InputError
from ..queries import Dialect

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


def check_params(params: Mapping[str, Any], dialect: Dialect) -> None:
    """Raise InputError (field = the parameter's path, e.g. `rows[3].text`) for the first value
    `dialect` cannot store exactly."""
    strict = dialect == "falkordb"
    for name, value in params.items():
        if strict:
            _check_key(name, name)
        _check(value, name, strict)


def _fail(path: str, message: str) -> InputError:
    return InputError(message, field=path)


def _check_key(key: Any, path: str) -> None:
    if not isinstance(key, str) or not key:
        raise _fail(path, "map keys must be non-empty strings")
    if "`" in key or "\x00" in key:
        raise _fail(path, f"map key {key[:40]!r} holds a backtick or NUL, which FalkorDB refuses")
    _check_str(key, path, strict=True)


def text_problem(value: str, *, nul: bool = True) -> str | None:
    """Why a string cannot be stored verbatim on every engine, or None. Readers call this to
    name the file, line and field; the stores call it again as the last line of defence."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        return f"not valid Unicode text ({e.reason} at character {e.start})"
    if nul and "\x00" in value:
        return "contains a NUL character, which FalkorDB cannot store"
    return None


def _check_str(value: str, path: str, strict: bool) -> None:
    problem = text_problem(value, nul=strict)
    if problem is not None:
        raise _fail(path, problem)


def _check(value: Any, path: str, strict: bool) -> None:
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, str):
        _check_str(value, path, strict)
    elif isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            raise _fail(path, f"integer {value} does not fit in 64 bits")
    elif isinstance(value, float):
        if strict and not math.isfinite(value):
            raise _fail(path, f"{value} is not a finite number")
    elif isinstance(value, (list, tuple)):
        # Embeddings are long float lists: one C-level sum says "all finite" for most of them
        # (NaN and infinity propagate through a sum; an overflow falls back to the slow path).
        floats = bool(value) and all(type(v) is float for v in value)
        if floats and (not strict or math.isfinite(sum(value))):
            return
        for i, item in enumerate(value):
            _check(item, f"{path}[{i}]", strict)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            where = f"{path}.{key}"
            if strict:
                _check_key(key, where)
            _check(item, where, strict)
