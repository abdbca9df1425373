"""The fixed vocabulary of the graph: every label, relationship type and migration.

Labels and relationship types reach Cypher only through the .cypher files; this registry is
what the code, the export/import format and the OGM are checked against.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .store import GraphStore


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@dataclass(frozen=True)
class NodeLabel:
    name: str
    caption: str
    """Property a person reads in Neo4j Browser."""
    embedding: bool = False
    """Carries an `embedding` vector property (stored with vecf32 on FalkorDB)."""
    keyed: bool = True
    """Unique on (space, id)."""

    @property
    def import_query(self) -> str:
        return f"portability/node_{snake(self.name)}"


@dataclass(frozen=True)
class RelType:
    name: str
    source: str
    target: str
    keyed: bool = False
    """Parallel edges of this type may exist between two nodes; each carries its own `id`."""

    @property
    def import_query(self) -> str:
        return f"portability/rel_{self.name.lower()}"


@dataclass(frozen=True)
class Migration:
    number: int
    name: str
    queries: tuple[str, ...] = ()
    """DDL query names, run in order with $dimension bound."""
    unique: tuple[str, ...] = ()
    """Labels given a (space, id) uniqueness constraint (FalkorDB: GRAPH.CONSTRAINT)."""
    data: Callable[[GraphStore], object] | None = None
    """A pass over stored data after the queries, for values Cypher cannot compute. Idempotent:
    it finds its own unfinished work."""


@dataclass(frozen=True)
class LayerSchema:
    layer: str
    labels: tuple[NodeLabel, ...] = ()
    relationships: tuple[RelType, ...] = ()
    migrations: tuple[Migration, ...] = field(default_factory=tuple)
