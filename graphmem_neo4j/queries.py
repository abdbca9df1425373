"""Loads named Cypher queries from the package's `cypher/` tree, picking the engine variant.

A shared file is Neo4j Cypher (it is linted as such); two engine differences are said once,
here, instead of in a `.falkordb.cypher` variant of every query that meets them:

    toFloatList(x)                  marks x as a vector: FalkorDB stores and compares vectors
                                    only as `vecf32(x)`; Neo4j keeps a list of floats
    vector.similarity.cosine(a, b)  Neo4j's (1 + cos) / 2; FalkorDB has the cosine distance,
                                    so it becomes (1 - vec.cosineDistance(a, b) / 2)

The rewrite is of fixed function names in the file's text: no value ever becomes query text.
A query that differs in anything else (vector index procedures, DDL, introspection) keeps its
`<name>.falkordb.cypher` variant.
"""

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
    variant = folder / f"{base}.{dialect}.cypher"
    if variant.is_file():
        return variant.read_text(encoding="utf-8")
    shared = folder / f"{base}.cypher"
    if shared.is_file():
        text = shared.read_text(encoding="utf-8")
        return for_falkordb(text) if dialect == "falkordb" else text
    raise QueryNotFound(f"no Cypher file for query {name!r} on {dialect}")


_VECTOR = re.compile(r"\btoFloatList\s*\(")
_COSINE = re.compile(r"\bvector\.similarity\.cosine\s*\(")


def for_falkordb(text: str) -> str:
    """A shared (Neo4j) query as FalkorDB runs it (see the module's docstring)."""
    text = _VECTOR.sub("vecf32(", text)
    while m := _COSINE.search(text):
        close = _closing(text, m.end() - 1)
        args = text[m.end() : close]
        text = f"{text[: m.start()]}(1 - vec.cosineDistance({args}) / 2){text[close + 1 :]}"
    return text


def _closing(text: str, start: int) -> int:
    """The index of the parenthesis closing the one at `start` (string literals skipped)."""
    depth, quote = 0, ""
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
    raise QueryNotFound(f"unbalanced parentheses after character {start} of a query")


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


def explained(text: str) -> str:
    """`text` planned but not run (Neo4j's `EXPLAIN`): what warming a server's plans sends."""
    return f"EXPLAIN {text}"
