"""Source names and labels as graphmem names: spaces, categories, relations. Pure."""

from __future__ import annotations

import re

from ..facts.models import FactInput
from ..spaces import validate_space

_NOT_SPACE_CHAR = re.compile(r"[^A-Za-z0-9_.\-]+")
_RELATION_CHARS = re.compile(r"[^\w \-'./&+]+", re.UNICODE)


def space_name(prefix: str, key: str) -> str:
    """The default space for a Mem0 user_id or a Graphiti group_id: the id itself when it is
    a valid space name, else its letters and digits (prefix when nothing is left)."""
    cleaned = _NOT_SPACE_CHAR.sub("-", key.strip()).strip("-_.")[:64]
    if not cleaned:
        cleaned = prefix
    return validate_space(cleaned)


def entity_name(name: str) -> str:
    """Mem0 stores names lowercased with `_` for spaces: `new_york` reads `new york`."""
    return " ".join(name.replace("_", " ").split())


def relation_name(text: str) -> str | None:
    """A source relation type as a graphmem relation (`LIVES_IN` → `lives_in`), or None
    when nothing usable is left."""
    cleaned = _RELATION_CHARS.sub(" ", text).strip(" _-'./&+").casefold()
    return cleaned or None


def valid_identifier(value: str, field: str) -> str | None:
    """The reason graphmem refuses `value` as a relation or category, or None."""
    probe = {"subject": "x", "relation": "x", "object": "x", "category": "x", field: value}
    try:
        FactInput.model_validate(probe)
    except ValueError as e:
        return str(e).splitlines()[-1].strip()
    return None


def category_of(labels: list[str], *, ignore: frozenset[str]) -> str:
    """The entity type among a node's labels: Mem0's one label per type (`__User__` for an
    unknown type), Graphiti's labels beside `Entity`. `entity` when there is none."""
    for label in sorted(labels):
        if label in ignore:
            continue
        name = label.strip("_").replace("_", " ").strip().casefold()
        if name and valid_identifier(name, "category") is None:
            return name
    return "entity"
