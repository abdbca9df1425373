"""FalkorDB vector indexes that have filled with orphaned vectors, found and rebuilt.

FalkorDB 4.16 re-indexes a node's vector on any write to the node and leaves the old vector in
the HNSW graph (upstream FalkorDB #2197 and #2657; docs/DEVELOPING.md, "Cypher rules"). The
orphans shadow live entries, so an index over nodes that are written often answers fewer
nodes than asked: the entity index after ingesting 10,000 synthetic turns, whose entities
are written at every mention, gave none of the 64 candidates asked, and every entity lookup
(concept source, sf roots, de-duplication) became an exact scan of the space (`nearest()`
stays right, only slower). The layers keep such marks off vector-indexed nodes where they
can; what remains is repaired here. Each vector index holding at least MIN_DOCUMENTS nodes is
asked for as many candidates as it holds (at most PROBE_CANDIDATES) near a fixed probe; every
orphan among them is dropped from the answer, so the share it gives is the share of live
entries. Any orphan can make `nearest()` scan (an answer shorter than asked settles only on
other grounds), so an index giving less than HEALTHY_SHARE is dropped and created again (the
server refills it from the nodes' vectors; 552 entities take 0.05 s, 10,000 turns 2.5 s).
An index refilling answers with the nodes indexed so far, which could pass as settled, so the
store marks the graph as refilling (a Redis key every process's store checks before a vector
lookup) until every index is built again: meanwhile lookups raise IndexUnavailable, which
`nearest()` answers by an exact scan."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..queries import falkordb_vector_index_drop, falkordb_vector_indexes, load_query
from .base import Row

MIN_DOCUMENTS = 256
"""A smaller index is left alone: the exact scan that its short answers cause is cheap."""
PROBE_CANDIDATES = 1024
HEALTHY_SHARE = 0.9
"""One round of writes to every entity leaves one orphan each (a share of 0.5)."""
REFILL_WAIT = 600.0
"""The longest a rebuild waits (seconds) for its index to be built before letting lookups use
it again."""
REPAIR_EVERY = 200
"""The store checks its vector indexes after every this many writes (and a conversation
ingestion before each batch and after the last, rebuilding an index with any orphan)."""


@dataclass(frozen=True)
class VectorIndex:
    label: str
    dimension: int
    documents: int
    built: bool


def vector_indexes(rows: Sequence[Row]) -> list[VectorIndex]:
    """The rows of core/vector_index_stats, one index per label. Right after a rebuild the old
    index is still listed beside the new one (FalkorDB drops it in the background): the label
    counts as not built until one is left."""
    by_label: dict[str, list[Row]] = {}
    for r in rows:
        by_label.setdefault(str(r["label"]), []).append(r)
    return [
        VectorIndex(
            label,
            int(found[-1]["dimension"]),
            int(found[-1]["documents"]),
            len(found) == 1 and bool(found[0]["built"]),
        )
        for label, found in by_label.items()
    ]


def probe(dimension: int) -> list[float]:
    """A fixed vector with no zero coordinate, so that its cosine with any vector is defined."""
    return [math.sin(i + 1.0) for i in range(dimension)]


def short(index: VectorIndex, answered: int, healthy: float = HEALTHY_SHARE) -> bool:
    """Whether an index answered so far below what it holds that it needs a rebuild."""
    asked = min(PROBE_CANDIDATES, index.documents)
    return answered < healthy * asked


def repair(
    read: Callable[[str, dict[str, object]], list[Row]],
    rebuild: Callable[[str | None, str, int], None],
    *,
    min_documents: int = MIN_DOCUMENTS,
    healthy: float = HEALTHY_SHARE,
) -> list[str]:
    """Rebuild every built vector index of graphmem's that answers short, and create one that
    is missing while the others exist (a rebuild stopped between its drop and its create);
    the labels rebuilt or created. `rebuild(drop_text or None, create_query, dimension)` runs
    the statements."""
    repaired = []
    creates = falkordb_vector_indexes()
    indexes = vector_indexes(read("core/vector_index_stats", {}))
    present = {index.label for index in indexes}
    dimensions = {index.dimension for index in indexes}
    if len(dimensions) == 1:  # every graphmem index has the embedder's dimension
        for label in sorted(set(creates) - present):
            rebuild(None, creates[label], next(iter(dimensions)))
            repaired.append(label)
    for index in indexes:
        create = creates.get(index.label)
        if create is None or not index.built or index.documents < min_documents:
            continue
        rows = read(
            "core/vector_index_probe",
            {
                "label": index.label,
                "candidates": min(PROBE_CANDIDATES, index.documents),
                "probe": probe(index.dimension),
            },
        )
        if not short(index, int(rows[0]["answered"]) if rows else 0, healthy):
            continue
        rebuild(falkordb_vector_index_drop(load_query(create, "falkordb")), create, index.dimension)
        repaired.append(index.label)
    return repaired
