"""Which stored entity each extracted name is: the exact-title key first, then embedding
similarity with stored entities and with the batch's other new names, else a new entity
(the paper's de-duplication, see dedup.py)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from ..nearest import Probe, nearest
from ..store import GraphStore
from .dedup import cluster_new_names, entity_id
from .models import TurnExtraction
from .plan import TurnPlan
from .text import name_key

Embed = Callable[[Sequence[str]], list[list[float]]]


def resolve_entities(
    store: GraphStore,
    space: str,
    batch: Sequence[TurnPlan],
    extractions: Sequence[TurnExtraction],
    embed: Embed,
    counters: defaultdict[str, int],
    *,
    threshold: float,
) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """name key → entity id for every entity of the batch, and the rows to upsert.

    The stored entities are looked up for every batch: an id remembered from an earlier
    batch may have been forgotten by another process since."""
    known: dict[str, str] = {}
    first: dict[str, tuple[str, str, TurnPlan]] = {}
    for plan, extraction in zip(batch, extractions, strict=True):
        for entity in extraction.entities:
            key = name_key(entity.name)
            if key and key not in first:
                first[key] = (entity.name, entity.type, plan)
    unknown = list(first)
    for start in range(0, len(unknown), 1000):
        for row in store.read(
            "conversation/entities_by_key",
            {"space": space, "keys": unknown[start : start + 1000]},
        ):
            known[str(row["key"])] = str(row["id"])
    rows: dict[str, dict[str, Any]] = {}

    def touch_row(eid: str, key: str) -> dict[str, Any]:
        name, kind, plan = first[key]
        row = rows.setdefault(
            eid,
            {
                "id": eid,
                "name": name,
                "name_key": key,
                "type": kind,
                "embedding": None,
                "aliases": [],
                "turn_index": plan.turn_index,
                "first_turn": plan.turn.turn_id,
            },
        )
        row["turn_index"] = max(row["turn_index"], plan.turn_index)
        return row

    fresh = [k for k in first if k not in known]
    if fresh:
        vectors = embed([first[k][0] for k in fresh])
        by_key = dict(zip(fresh, vectors, strict=True))
        matches: dict[str, str] = {}
        probes = [Probe(k, by_key[k]) for k in fresh]
        for start in range(0, len(probes), 500):
            closest = nearest(
                store,
                "conversation/similar_entities",
                probes[start : start + 500],
                space=space,
                k=1,
                min_similarity=threshold,
            )
            for key, hits in closest.items():
                if hits:
                    matches[key] = str(hits[0]["id"])
        for key, eid in matches.items():
            known[key] = eid
            touch_row(eid, key)["aliases"].append(first[key][0])
            counters["entities_merged"] += 1
        remaining = [k for k in fresh if k not in matches]
        for cluster in cluster_new_names(remaining, [by_key[k] for k in remaining], threshold):
            eid = entity_id(cluster.key)
            row = touch_row(eid, cluster.key)
            row["embedding"] = by_key[cluster.key]
            counters["entities_created"] += 1
            for member in cluster.members:
                known[member] = eid
                if member != cluster.key:
                    row["aliases"].append(first[member][0])
                    counters["entities_merged"] += 1
    for key in first:
        eid = known[key]
        if eid not in rows:
            touch_row(eid, key)
    resolved = {key: known[key] for key in first}
    # An existing entity row must not overwrite its stored name or embedding: the upsert
    # sets those only ON CREATE. Rows of new entities always carry their embedding.
    return resolved, list(rows.values())
