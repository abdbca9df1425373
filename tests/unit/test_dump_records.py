"""A dump never holds a relationship whose target node it lacks (Neo4j's read-committed
reads can show a concurrent writer's edge without its new node)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphmem_neo4j.portability import dump_records


class OneReadParts:
    """The parts `dump_records` uses: a space check and one export read."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows
        self.store = self

    def require_space(self, space: str) -> str:
        return space

    def read(self, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        assert query == "core/export_space"
        return self.rows


def edge(target: str, label: str = "Turn") -> dict[str, Any]:
    return {"type": "HAS_TURN", "target": target, "target_label": label, "props": {}}


def test_an_edge_to_a_node_the_read_missed_is_left_out() -> None:
    rows = [
        {"label": "Session", "props": {"id": "s1", "space": "x"}, "rels": [edge("t1"), edge("t2")]},
        {"label": "Turn", "props": {"id": "t1", "space": "x"}, "rels": []},
    ]
    records = list(dump_records(OneReadParts(rows), "x"))  # type: ignore[arg-type]
    nodes = [(r["label"], r["id"]) for r in records if r["kind"] == "node"]
    rels = [(r["source"], r["target"]) for r in records if r["kind"] == "rel"]
    assert nodes == [("Session", "s1"), ("Turn", "t1")]
    assert rels == [("s1", "t1")]


def test_an_edge_needs_its_target_under_the_same_label() -> None:
    rows = [
        {"label": "Session", "props": {"id": "s1", "space": "x"}, "rels": [edge("s1", "Turn")]},
    ]
    records = list(dump_records(OneReadParts(rows), "x"))  # type: ignore[arg-type]
    assert [r for r in records if r["kind"] == "rel"] == []
