"""Helpers for the facts integration tests. The graph is inspected through the export records
(portability.dump_records) and the service's own reads, so the tests hold no Cypher."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import dump_records
from graphmem_neo4j.store.base import GraphStore, Params, Row


def fact(
    subject: str, relation: str, obj: str, category: str = "location", **kw: Any
) -> dict[str, Any]:
    return {"subject": subject, "relation": relation, "object": obj, "category": category, **kw}


@dataclass
class Graph:
    nodes: dict[tuple[str, str], dict[str, Any]]
    rels: list[dict[str, Any]]

    def ids(self, label: str) -> set[str]:
        return {i for (lab, i) in self.nodes if lab == label}

    def props(self, label: str, node_id: str) -> dict[str, Any]:
        return self.nodes[(label, node_id)]

    def edges(self, rel_type: str) -> set[tuple[str, str]]:
        return {(r["source"], r["target"]) for r in self.rels if r["type"] == rel_type}

    def status(self, unit_id: str) -> str:
        return str(self.props("MemoryUnit", unit_id)["status"])


def graph(memory: GraphMemory, space: str) -> Graph:
    nodes: dict[tuple[str, str], dict[str, Any]] = {}
    rels: list[dict[str, Any]] = []
    for record in dump_records(memory, space):
        if record["kind"] == "node":
            nodes[(record["label"], record["id"])] = record["props"]
        else:
            rels.append(record)
    return Graph(nodes, rels)


class RecordingStore:
    """A GraphStore that remembers which named queries ran (and can fail on one)."""

    def __init__(self, inner: GraphStore) -> None:
        self.inner = inner
        self.dialect = inner.dialect
        self.target = inner.target
        self.calls: list[str] = []
        self.fail_on: str | None = None

    def __getattr__(self, name: str) -> Any:
        # anything else the store protocol grows is passed through unchanged
        return getattr(self.inner, name)

    def _note(self, query: str) -> None:
        self.calls.append(query)
        if self.fail_on == query:
            raise RuntimeError(f"simulated crash before {query}")

    def read(self, query: str, params: Params | None = None) -> list[Row]:
        self._note(query)
        return self.inner.read(query, params)

    def write(self, query: str, params: Params | None = None) -> list[Row]:
        self._note(query)
        return self.inner.write(query, params)

    def write_batches(
        self,
        query: str,
        rows: Sequence[Mapping[str, Any]],
        *,
        batch_size: int,
        params: Params | None = None,
        on_batch: Any = None,
    ) -> int:
        self._note(query)
        return self.inner.write_batches(
            query, rows, batch_size=batch_size, params=params, on_batch=on_batch
        )

    def ensure_unique(self, label: str, properties: Sequence[str]) -> None:
        self.inner.ensure_unique(label, properties)

    def ping(self) -> None:
        self.inner.ping()

    def server_info(self) -> dict[str, Any]:
        return self.inner.server_info()

    def close(self) -> None:
        self.inner.close()


@pytest.fixture
def recorded(memory: GraphMemory) -> Iterator[tuple[GraphMemory, RecordingStore]]:
    """A GraphMemory on the same graph whose store records every query."""
    store = RecordingStore(memory.store)
    yield GraphMemory(memory.settings, store=store, embedder=memory.embedder), store
