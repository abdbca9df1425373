"""Helpers for the insights integration tests: the graph is inspected through the export
records (portability.dump_records), so the tests hold no Cypher of their own."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from graphmem_neo4j.insights.models import Step, TaskRecord
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import dump_records


@pytest.fixture(autouse=True)
def alfworld_pack(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests exercise the controller's mechanics on a handful of ALFWorld-style tasks,
    too few for a space's goal model: they read goals with the ALFWorld domain pack.
    test_task_structure.py tests the default (no pack) instead."""
    if request.node.get_closest_marker("default_similarity") is None:
        monkeypatch.setenv("GRAPHMEM_DOMAIN_PACK", "alfworld")


def task(
    task_id: str,
    query: str,
    status: str = "resolved",
    actions: Sequence[str] = ("take it", "put it down"),
    feedback: str | None = None,
) -> TaskRecord:
    return TaskRecord(
        id=task_id,
        query=query,
        status=status,  # type: ignore[arg-type]
        steps=tuple(Step(a, f"after {a}") for a in actions),
        feedback=feedback,
    )


@dataclass
class Graph:
    nodes: dict[tuple[str, str], dict[str, Any]]
    rels: list[dict[str, Any]]

    def props(self, label: str, node_id: str) -> dict[str, Any]:
        return self.nodes[(label, node_id)]

    def ids(self, label: str) -> set[str]:
        return {i for (lab, i) in self.nodes if lab == label}

    def edges(self, rel_type: str) -> set[tuple[str, str]]:
        return {(r["source"], r["target"]) for r in self.rels if r["type"] == rel_type}

    def edge_props(self, rel_type: str) -> list[dict[str, Any]]:
        return [
            {**r["props"], "source": r["source"], "target": r["target"]}
            for r in self.rels
            if r["type"] == rel_type
        ]


def graph(memory: GraphMemory, space: str) -> Graph:
    nodes: dict[tuple[str, str], dict[str, Any]] = {}
    rels: list[dict[str, Any]] = []
    for record in dump_records(memory, space):
        if record["kind"] == "node":
            nodes[(record["label"], record["id"])] = record["props"]
        else:
            rels.append(record)
    return Graph(nodes, rels)
