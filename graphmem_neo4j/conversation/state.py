"""Facts about a space that several parts of the layer read: sizes, participants, the clock."""

from __future__ import annotations

from dataclasses import dataclass

from .deps import Parts


@dataclass(frozen=True)
class SpaceStats:
    sessions: int
    turns: int
    terms: int

    @property
    def avg_terms(self) -> float:
        return self.terms / self.turns if self.turns else 1.0


class SpaceState:
    def __init__(self, parts: Parts) -> None:
        self.parts = parts
        self._stats: dict[str, SpaceStats] = {}
        self._speakers: dict[str, frozenset[str]] = {}
        self._entity_counts: dict[str, int] = {}
        self._clocks: dict[str, int] = {}
        self.entity_keys: dict[str, dict[str, str]] = {}
        """space → entity name key → entity id, as this process last saw them."""

    def stats(self, space: str) -> SpaceStats:
        if space not in self._stats:
            rows = self.parts.store.read("conversation/space_stats", {"space": space})
            row = rows[0] if rows else {}
            self._stats[space] = SpaceStats(
                sessions=int(row.get("sessions") or 0),
                turns=int(row.get("turns") or 0),
                terms=int(row.get("terms") or 0),
            )
        return self._stats[space]

    def speakers(self, space: str) -> frozenset[str]:
        if space not in self._speakers:
            rows = self.parts.store.read("conversation/space_speakers", {"space": space})
            self._speakers[space] = frozenset(str(r["speaker"]) for r in rows)
        return self._speakers[space]

    def entity_count(self, space: str) -> int:
        if space not in self._entity_counts:
            rows = self.parts.store.read("conversation/entity_count", {"space": space})
            self._entity_counts[space] = int(rows[0]["entities"]) if rows else 0
        return self._entity_counts[space]

    def clock(self, space: str) -> int:
        """Turns ever ingested into the space: the time axis of forgetting (turn age)."""
        if space not in self._clocks:
            rows = self.parts.store.read("conversation/space_clock", {"space": space})
            row = rows[0] if rows else {}
            last_turn = row.get("last_turn")
            last_run = row.get("last_run")
            self._clocks[space] = max(
                int(last_turn) + 1 if last_turn is not None else 0,
                int(last_run) if last_run is not None else 0,
            )
        return self._clocks[space]

    def advance_clock(self, space: str, clock: int) -> None:
        self._clocks[space] = clock

    def last_forget_at(self, space: str) -> int | None:
        rows = self.parts.store.read("conversation/last_forget_run", {"space": space})
        value = rows[0]["at_turn"] if rows else None
        return int(value) if value is not None else None

    def invalidate(self, space: str) -> None:
        self._clocks.pop(space, None)
        self._stats.pop(space, None)
        self._speakers.pop(space, None)
        self._entity_counts.pop(space, None)
