"""Loads named Cypher queries from the package's `cypher/` tree, picking the engine variant."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from importlib.abc import Traversable
from typing import Literal

from .errors import QueryNotFound

Dialect = Literal["neo4j", "falkordb"]
DIALECTS: tuple[Dialect, ...] = ("neo4j", "falkordb")
_NAME = re.compile(r"^[a-z][a-z0-9_]*/[a-z][a-z0-9_]*$")


def _root() -> Traversable:
    return resources.files("graphmem_neo4j.cypher")


@cache
def load_query(name: str, dialect: Dialect) -> str:
    """Text of query `name` ("layer/query") for `dialect`: the variant if one exists, else the
    shared file. Raises QueryNotFound for a name with no file."""
    if not _NAME.match(name):
        raise QueryNotFound(f"bad query name {name!r}: expected 'layer/name'")
    layer, base = name.split("/")
    folder = _root() / layer
    for candidate in (f"{base}.{dialect}.cypher", f"{base}.cypher"):
        path = folder / candidate
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise QueryNotFound(f"no Cypher file for query {name!r} on {dialect}")


def query_files() -> list[tuple[str, str, Dialect | None]]:
    """Every (query name, file name, dialect or None when shared) in the tree."""
    found: list[tuple[str, str, Dialect | None]] = []
    for layer in sorted(_root().iterdir(), key=lambda p: p.name):
        if not layer.is_dir() or layer.name.startswith(("_", ".")):
            continue
        for f in sorted(layer.iterdir(), key=lambda p: p.name):
            if not f.name.endswith(".cypher"):
                continue
            stem = f.name[: -len(".cypher")]
            dialect: Dialect | None = None
            for d in DIALECTS:
                if stem.endswith("." + d):
                    dialect = d
                    stem = stem[: -len(d) - 1]
            found.append((f"{layer.name}/{stem}", f"{layer.name}/{f.name}", dialect))
    return found


def queries_for(dialect: Dialect) -> dict[str, str]:
    """name → text of every query this dialect runs (shared files plus its own variants)."""
    names = {name for name, _, d in query_files() if d in (None, dialect)}
    return {name: load_query(name, dialect) for name in sorted(names)}
