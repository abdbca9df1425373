"""Facts about a space that several parts of the layer read: size, participants, the clock.

Nothing here is cached. Another process may ingest, forget or restore at any time, and a copy
kept by this one would silently go stale (tests/integration/conversation/test_cross_process.py
shows each case), so every search and every ingestion reads what it needs once, in one query.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .deps import Parts


@dataclass(frozen=True)
class SpaceStats:
    sessions: int
    turns: int
    terms: int

    @property
    def avg_terms(self) -> float:
        return self.terms / self.turns if self.turns else 1.0


@dataclass(frozen=True)
class SpaceFacts:
    stats: SpaceStats
    speakers: frozenset[str]
    clock: int
    """Turns ever ingested into the space: the time axis of forgetting (turn age)."""
    known: bool = True
    """Whether the space exists (its Space node)."""


def _clock(last_turn: Any, last_run: Any) -> int:
    # Forgetting deletes turns, so a count of the turns stored now would run backwards; the
    # newest turn index and the last run do not.
    return max(
        int(last_turn) + 1 if last_turn is not None else 0,
        int(last_run) if last_run is not None else 0,
    )


class SpaceState:
    def __init__(self, parts: Parts) -> None:
        self.parts = parts

    def facts(self, space: str) -> SpaceFacts:
        store = self.parts.store
        rows = store.read("conversation/space_facts", {"space": space})
        row: Mapping[str, Any] = rows[0] if rows else {}
        if int(row.get("unstamped") or 0):
            # Sessions from before migration 103 do not carry their clock yet.
            scan = store.read("conversation/space_clock", {"space": space})
            clock = _clock(scan[0].get("last_turn"), scan[0].get("last_run")) if scan else 0
        else:
            clock = _clock(row.get("last_turn"), row.get("last_run"))
        speakers = row.get("speakers")
        if speakers is None and int(row.get("sessions") or 0):
            # The Space node does not keep its participants yet (migration 104 stamps it).
            gathered = store.read("conversation/space_speakers", {"space": space})
            speakers = gathered[0]["speakers"] if gathered else []
        return SpaceFacts(
            stats=SpaceStats(
                sessions=int(row.get("sessions") or 0),
                turns=int(row.get("turns") or 0),
                terms=int(row.get("terms") or 0),
            ),
            speakers=frozenset(str(s) for s in speakers or ()),
            clock=clock,
            known=bool(row.get("known", False)),  # no row: an empty graph (checked by the caller)
        )

    def entity_count(self, space: str) -> int:
        rows = self.parts.store.read("conversation/entity_count", {"space": space})
        return int(rows[0]["entities"]) if rows else 0

    def last_forget_at(self, space: str) -> int | None:
        rows = self.parts.store.read("conversation/last_forget_run", {"space": space})
        value = rows[0]["at_turn"] if rows else None
        return int(value) if value is not None else None
