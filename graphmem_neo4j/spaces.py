"""Space (tenant) names. Every node carries `space`; every query filters on it."""

from __future__ import annotations

import re

from .errors import InputError

_SPACE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")


def validate_space(name: str, *, source: str | None = None, line: int | None = None) -> str:
    """Letters, digits, '_', '.', '-'; 1-64 characters, starting with a letter or digit."""
    if not isinstance(name, str) or not _SPACE.match(name):
        raise InputError(
            f"invalid space name {name!r}: use 1-64 letters, digits, '_', '.' or '-', "
            "starting with a letter or digit",
            source=source,
            line=line,
            field="space",
        )
    return name
