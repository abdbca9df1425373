"""The one seam between graphmem and a graph engine."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from ..queries import Dialect
from ..settings import EngineTarget

Row = dict[str, Any]
Params = Mapping[str, Any]


@runtime_checkable
class GraphStore(Protocol):
    """Runs named queries (files under cypher/) and returns plain rows: dicts of Python values.

    A driver record, node or result object never leaves a store.
    """

    dialect: Dialect
    target: EngineTarget
    vector_space_filter: bool
    """Whether a vector index query filters by `space` inside the index (Neo4j with Cypher
    25's SEARCH): then a short answer means the space has no more nodes (nearest.py)."""

    def read(self, query: str, params: Params | None = None) -> list[Row]:
        """Run a read-only query (routed to a reader on a Neo4j cluster)."""
        ...

    def write(self, query: str, params: Params | None = None) -> list[Row]:
        """Run one write statement as one transaction (retried on transient Neo4j errors)."""
        ...

    def write_batches(
        self,
        query: str,
        rows: Sequence[Mapping[str, Any]],
        *,
        batch_size: int,
        params: Params | None = None,
        on_batch: Callable[[int], None] | None = None,
    ) -> int:
        """Run `query` once per slice of `rows`, passed as `$rows` (the query UNWINDs it)."""
        ...

    def ensure_unique(self, label: str, properties: Sequence[str]) -> None:
        """Engine-specific uniqueness that plain Cypher cannot express (FalkorDB's
        GRAPH.CONSTRAINT). A no-op where a .cypher migration already did it."""
        ...

    def checkpoint(self) -> None:
        """After schema changes: make them durable in the engine's fast-loading form
        (the embedded FalkorDB rewrites its AOF so indexes load before replayed writes)."""
        ...

    def ping(self) -> None: ...

    def server_info(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


def chunks(rows: Sequence[Mapping[str, Any]], size: int) -> Iterable[Sequence[Mapping[str, Any]]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


class BatchingMixin:
    """write_batches on top of write, shared by both stores."""

    vector_space_filter: bool = False

    def write(self, query: str, params: Params | None = None) -> list[Row]:
        raise NotImplementedError

    def write_batches(
        self,
        query: str,
        rows: Sequence[Mapping[str, Any]],
        *,
        batch_size: int,
        params: Params | None = None,
        on_batch: Callable[[int], None] | None = None,
    ) -> int:
        written = 0
        for batch in chunks(rows, batch_size):
            self.write(query, {**(params or {}), "rows": list(batch)})
            written += len(batch)
            if on_batch is not None:
                on_batch(len(batch))
        return written
