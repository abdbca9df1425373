"""FalkorDB's side of the protocol: the `CYPHER name=value ...` parameter header in front of a
query, and the `--compact` result set (FalkorDB docs, "Client specification": every cell is a
[type, value] pair; nodes and edges name their labels, types and property keys by number).

Nodes, edges and maps come back as plain dicts of their properties and a path as the list of
its nodes and edges in order, which is what the store hands its callers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, ClassVar

import hiredis

from .resp import ServerError

NULL, STRING, INTEGER, BOOLEAN, DOUBLE, ARRAY, EDGE, NODE, PATH, MAP, POINT, VECTOR = range(1, 13)
DATETIME, DATE, TIME, DURATION = range(13, 17)


def cypher_literal(value: Any) -> str:
    """A parameter value as the header's text (store/params.py refuses what would not survive
    this: NUL, NaN, infinities, integers beyond 64 bits, backticks in map keys)."""
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        if all(type(x) is float for x in value):  # an embedding: 384 floats, on every search
            return "[" + ",".join(map(float.__repr__, value)) + "]"
        return "[" + ",".join(map(cypher_literal, value)) + "]"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"`{k}`:{cypher_literal(v)}" for k, v in value.items()) + "}"
    return repr(value) if isinstance(value, float) else str(value)


def with_parameters(query: str, params: Mapping[str, Any]) -> str:
    if not params:
        return query
    header = " ".join(f"{name}={cypher_literal(value)}" for name, value in params.items())
    return f"CYPHER {header} {query}"


class Schema:
    """Label, relationship-type and property-key names by id, for one graph; refreshed from
    the `db.*` procedures when a reply holds an id not seen yet."""

    _QUERIES: ClassVar[dict[str, str]] = {
        "labels": "core/schema_labels",
        "types": "core/schema_relationship_types",
        "keys": "core/schema_property_keys",
    }

    def __init__(self, run: Callable[[str], list[Any]]) -> None:
        self._run = run  # runs a named read-only query, returns its raw compact reply
        self._names: dict[str, list[str]] = {kind: [] for kind in self._QUERIES}
        self._lock = threading.Lock()

    def name(self, kind: str, index: int) -> str:
        names = self._names[kind]
        if index >= len(names):
            with self._lock:
                reply = self._run(self._QUERIES[kind])
                self._names[kind] = names = [row[0][1] for row in reply[1]]
        return names[index] if index < len(names) else f"#{index}"


def parse_result(reply: list[Any], schema: Schema) -> tuple[list[str], list[list[Any]]]:
    """Column names and rows of a compact reply ([header, rows, statistics], or only
    [statistics] for a query that returns nothing). An error met while running the query
    comes as the reply's last element."""
    if reply and isinstance(reply[-1], hiredis.ReplyError):
        raise ServerError(str(reply[-1]))
    if len(reply) < 3:
        return [], []
    header = [column[1] for column in reply[0]]
    rows = [[value(cell, schema) for cell in row] for row in reply[1]]
    return header, rows


def value(cell: list[Any], schema: Schema) -> Any:
    kind, raw = int(cell[0]), cell[1]
    if kind in (STRING, NULL):
        return raw
    if kind == INTEGER:
        return int(raw)
    if kind == DOUBLE:
        return float(raw)
    if kind == BOOLEAN:
        return raw == "true"
    if kind == ARRAY:
        return [value(item, schema) for item in raw]
    if kind == VECTOR:
        return [float(x) for x in raw]
    if kind == MAP:
        return {raw[i]: value(raw[i + 1], schema) for i in range(0, len(raw), 2)}
    if kind == NODE:  # [id, [label ids], [[key id, type, value], ...]]
        return _properties(raw[2], schema)
    if kind == EDGE:  # [id, type id, source id, target id, properties]
        return _properties(raw[4], schema)
    if kind == PATH:  # as the Neo4j driver's record.data() gives it: node, edge, node, ...
        nodes, edges = value(raw[0], schema), value(raw[1], schema)
        walk = [nodes[0]] if nodes else []
        for edge, node in zip(edges, nodes[1:], strict=False):
            walk += [edge, node]
        return walk
    if kind == POINT:
        return {"latitude": float(raw[0]), "longitude": float(raw[1])}
    if kind == DATETIME:
        return datetime.fromtimestamp(raw, tz=UTC)
    if kind == DATE:
        return datetime.fromtimestamp(raw, tz=UTC).date()
    if kind == TIME:
        return datetime.fromtimestamp(raw, tz=UTC).time()
    return raw  # DURATION (seconds) and anything newer: as sent


def _properties(entries: list[Any], schema: Schema) -> dict[str, Any]:
    return {schema.name("keys", int(e[0])): value(e[1:], schema) for e in entries}
