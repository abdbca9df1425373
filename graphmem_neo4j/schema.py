"""The registry of every layer's schema, and `graphmem init`: numbered idempotent migrations."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from . import core_schema
from .conversation import schema as conversation_schema
from .errors import SchemaMismatch
from .experience import schema as experience_schema
from .facts import schema as facts_schema
from .insights import schema as insights_schema
from .items import schema as items_schema
from .schema_types import LayerSchema, Migration, NodeLabel, RelType, snake
from .store.base import GraphStore

SYSTEM_LABELS = core_schema.SYSTEM_LABELS

BOOTSTRAP = (
    "core/schema_meta_key",
    "core/schema_migration_key",
    "core/schema_lock_key",
    "core/schema_key_hash",
)
"""Run before the migrations are read: the bookkeeping nodes' own uniqueness (Neo4j's MERGE
creates two nodes when two transactions miss the same one at once)."""

_LAYERS: tuple[LayerSchema, ...] = (
    core_schema.SCHEMA,
    conversation_schema.SCHEMA,
    facts_schema.SCHEMA,
    insights_schema.SCHEMA,
    experience_schema.SCHEMA,
)


def _space_indexes() -> LayerSchema:
    """Cross-cutting: an index on `space` for every label. Neo4j cannot seek its composite
    (space, id) constraint index by `space` alone, so a query over a whole space read every
    tenant's nodes of that label."""
    names = [label.name for layer in _LAYERS for label in layer.labels]
    queries = tuple(f"space_index/{snake(name)}" for name in names)
    return LayerSchema(layer="space_index", migrations=(Migration(500, "space indexes", queries),))


LAYERS: tuple[LayerSchema, ...] = (*_LAYERS, _space_indexes(), items_schema.SCHEMA)
"""Layers after the space indexes (600+) create their labels' space index themselves, after
their (space, id) key: FalkorDB builds a composite index only on a label it has not indexed."""


def labels() -> dict[str, NodeLabel]:
    return {label.name: label for layer in LAYERS for label in layer.labels}


def relationships() -> dict[str, RelType]:
    return {rel.name: rel for layer in LAYERS for rel in layer.relationships}


def migrations() -> list[Migration]:
    found = sorted((m for layer in LAYERS for m in layer.migrations), key=lambda m: m.number)
    numbers = [m.number for m in found]
    if len(set(numbers)) != len(numbers):
        raise RuntimeError(f"duplicate migration numbers: {numbers}")
    return found


def _wall_clock() -> int:
    return int(time.time() * 1000)


_clock: Callable[[], int] = _wall_clock


def now_ms() -> int:
    """Times are epoch milliseconds on both engines (FalkorDB has no datetime type). Every
    time graphmem writes comes from here."""
    return _clock()


@contextlib.contextmanager
def frozen_clock(at_ms: int) -> Iterator[None]:
    """Every write inside is stamped `at_ms` (parity checks: the same input written on two
    engines, or twice, then hashes alike)."""
    global _clock
    previous, _clock = _clock, (lambda: at_ms)
    try:
        yield
    finally:
        _clock = previous


@dataclass(frozen=True)
class SchemaState:
    embedding_model: str | None
    embedding_dimension: int | None
    applied: list[dict[str, Any]]
    pending: list[Migration]


def read_state(store: GraphStore) -> SchemaState:
    meta = store.read("core/get_meta")
    applied = store.read("core/list_migrations")
    done = {int(row["id"]) for row in applied}
    return SchemaState(
        embedding_model=meta[0]["embedding_model"] if meta else None,
        embedding_dimension=int(meta[0]["embedding_dimension"]) if meta else None,
        applied=applied,
        pending=[m for m in migrations() if m.number not in done],
    )


def check_embedding(state: SchemaState, model: str, dimension: int) -> None:
    if state.embedding_dimension is None:
        return
    if state.embedding_dimension != dimension or state.embedding_model != model:
        raise SchemaMismatch(
            f"this graph stores {state.embedding_dimension}-d embeddings from "
            f"'{state.embedding_model}', but the configured embedder is '{model}' "
            f"({dimension}-d); run `graphmem reembed --space SPACE` for each space to move "
            "the graph to the configured model, or configure the recorded one again "
            "(GRAPHMEM_EMBEDDING_MODEL / GRAPHMEM_EMBEDDER)"
        )


def apply_migrations(store: GraphStore, *, embedding_model: str, dimension: int) -> list[Migration]:
    """Bring the graph's schema up to date; returns the migrations applied now.

    Each step is idempotent (IF NOT EXISTS on Neo4j; FalkorDB's "already indexed" is success),
    so a run interrupted half-way is finished by the next one.
    """
    for query in BOOTSTRAP:
        store.write(query)
    state = read_state(store)
    check_embedding(state, embedding_model, dimension)
    store.write(
        "core/set_meta",
        {"embedding_model": embedding_model, "embedding_dimension": dimension, "now": now_ms()},
    )
    check_embedding(read_state(store), embedding_model, dimension)
    for migration in state.pending:
        for query in migration.queries:
            store.write(query, {"dimension": dimension})
        for label in migration.unique:
            store.ensure_unique(label, ("space", "id"))
        if migration.data is not None:
            migration.data(store)
        store.write(
            "core/record_migration",
            {"id": migration.number, "name": migration.name, "now": now_ms()},
        )
    if state.pending:
        store.write("core/await_indexes")
        store.checkpoint()
    return state.pending
