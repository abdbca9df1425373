"""The facts layer's rows and writes: a fact as a MemoryUnit row, the batched writes of
units and SUPPORTS edges, the one statement that flips statuses, and the reads of a slot's
versions and of a unit's dependents that an update decides on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..schema import now_ms
from ..store.base import GraphStore
from .models import Fact, MemoryUnit, UnitStatus, UpdatePolicy
from .rewrite import StatusChange, StoredUnit, SupporterRef

Slot = tuple[str, str, str | None]


def stored_unit(row: Mapping[str, Any]) -> StoredUnit:
    return StoredUnit(
        unit=MemoryUnit.from_row(row["unit"]),
        supporters=tuple(SupporterRef.from_row(s) for s in row.get("supporters") or []),
        superseded_by=tuple(str(x) for x in row.get("superseded_by") or []),
        contests=tuple(str(x) for x in row.get("contests") or []),
    )


def unit_row(fact: Fact, status: UnitStatus, vectors: Mapping[str, list[float]]) -> dict[str, Any]:
    props = {
        "subject": fact.subject,
        "subject_key": fact.subject_key,
        "relation": fact.relation,
        "relation_key": fact.relation_key,
        "object": fact.object,
        "object_key": fact.object_key,
        "category": fact.category,
        "category_key": fact.category_key,
        "context": fact.context,
        "context_key": fact.context_key,
        "confidence": fact.confidence,
        "status": status.value,
        "valid_from": fact.valid_from,
        "recorded_at": now_ms(),
        "source": fact.source,
        "text": fact.text,
    }
    return {
        "id": fact.id,
        "props": {k: v for k, v in props.items() if v is not None},
        "embedding": vectors[fact.text],
        "subject": fact.subject,
        "subject_key": fact.subject_key,
        "subject_embedding": vectors[fact.subject],
        "category": fact.category,
        "category_key": fact.category_key,
        "category_embedding": vectors[fact.category],
        "context": fact.context,
        "context_key": fact.context_key,
    }


class UnitWrites:
    """Reads and writes of MemoryUnits in one store, in batches of `batch_size`."""

    def __init__(self, store: GraphStore, batch_size: int) -> None:
        self.store = store
        self.batch_size = batch_size

    def write_units(self, space: str, rows: Sequence[Mapping[str, Any]]) -> None:
        self.store.write_batches(
            "facts/write_units",
            rows,
            batch_size=self.batch_size,
            params={"space": space, "now": now_ms()},
        )

    def write_supports(self, space: str, edges: Sequence[tuple[str, str]]) -> None:
        if edges:
            self.store.write_batches(
                "facts/write_supports",
                [{"source": a, "target": b} for a, b in edges],
                batch_size=self.batch_size,
                params={"space": space, "now": now_ms()},
            )

    def apply(self, space: str, changes: Sequence[StatusChange]) -> None:
        """The single statement that makes an update visible (see apply_statuses.cypher)."""
        if changes:
            self.store.write(
                "facts/apply_statuses",
                {"space": space, "now": now_ms(), "changes": [c.as_row() for c in changes]},
            )

    def slot_versions(
        self, space: str, slots: Sequence[Slot], *, any_context: bool = False
    ) -> dict[int, list[StoredUnit]]:
        rows = self.store.read(
            "facts/key_versions",
            {
                "space": space,
                "any_context": any_context,
                "keys": [
                    {"index": i, "subject": s, "relation": r, "context": c}
                    for i, (s, r, c) in enumerate(slots)
                ],
            },
        )
        found: dict[int, list[StoredUnit]] = {i: [] for i in range(len(slots))}
        for row in rows:
            found[int(row["key_index"])].append(stored_unit(row))
        return found

    def occupied_slots(self, space: str, slots: Sequence[Slot], policy: UpdatePolicy) -> list[bool]:
        occupied = [False] * len(slots)
        size = self.batch_size
        for start in range(0, len(slots), size):
            chunk = slots[start : start + size]
            found = self.slot_versions(
                space, chunk, any_context=policy == UpdatePolicy.RELATION_LEVEL
            )
            for offset, units in found.items():
                occupied[start + offset] = bool(units)
        return occupied

    def dependents(self, space: str, ids: Sequence[str]) -> list[StoredUnit]:
        rows = self.store.read("facts/dependents", {"space": space, "ids": list(ids)})
        return [stored_unit(r) for r in rows]

    def value_heads(self, space: str, ids: Sequence[str]) -> list[str]:
        """The units that re-assert each given unit's value since it was superseded."""
        rows = self.store.read("facts/value_heads", {"space": space, "ids": list(ids)})
        return [str(r["head"]) for r in rows]
