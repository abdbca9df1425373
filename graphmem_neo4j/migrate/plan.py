"""What a migration imports into each space, and what it skips and why. Pure data."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class EntityRow:
    """A source entity: it becomes a Subject (the facts layer's entity node)."""

    source_id: str
    name: str
    category: str
    created_at: int | None


@dataclass(frozen=True)
class FactRow:
    """A source relationship: it becomes a MemoryUnit with the source's times."""

    source_id: str
    subject: str
    relation: str
    object: str
    category: str
    valid_from: int
    valid_to: int | None
    recorded_at: int
    closed: bool
    """Soft-deleted (Mem0), invalidated or expired (Graphiti): not current."""
    text: str | None = None
    """The source's own sentence for the fact (Graphiti's `fact`), when it has one."""
    evidence: tuple[str, ...] = ()
    """Turn ids (Graphiti episodes) the fact was extracted from."""


@dataclass(frozen=True)
class TurnRow:
    """A source episode: it becomes a Turn of a Session, in time order."""

    source_id: str
    session: str
    turn_id: str
    speaker: str
    text: str
    timestamp: int


@dataclass(frozen=True)
class Skipped:
    element_id: str
    kind: str
    reason: str

    def as_dict(self) -> dict[str, str]:
        return {"element_id": self.element_id, "kind": self.kind, "reason": self.reason}


@dataclass
class SpacePlan:
    space: str
    source_key: str
    """The user_id (Mem0) or group_id (Graphiti) the space holds."""
    entities: list[EntityRow] = field(default_factory=list)
    facts: list[FactRow] = field(default_factory=list)
    turns: list[TurnRow] = field(default_factory=list)
    mentions: list[tuple[str, str]] = field(default_factory=list)
    """(turn id, entity name) pairs from the source's mention edges."""
    reported: dict[str, int] = field(default_factory=dict)
    """Source nodes counted but not imported (Graphiti communities and sagas)."""

    def counts(self) -> dict[str, int]:
        return {
            "entities": len(self.entities),
            "facts": len(self.facts),
            "closed_facts": sum(1 for f in self.facts if f.closed),
            "turns": len(self.turns),
            "sessions": len({t.session for t in self.turns}),
            "mentions": len(self.mentions),
        }


@dataclass
class MigrationPlan:
    kind: str
    spaces: dict[str, SpacePlan] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)
    source_counts: dict[str, int] = field(default_factory=dict)

    def space(self, name: str, source_key: str) -> SpacePlan:
        if name not in self.spaces:
            self.spaces[name] = SpacePlan(name, source_key)
        return self.spaces[name]

    def skip(self, element_id: str, kind: str, reason: str) -> None:
        self.skipped.append(Skipped(str(element_id), kind, reason))

    def as_dict(self) -> dict[str, Any]:
        reasons: dict[str, int] = {}
        for s in self.skipped:
            reasons[s.reason] = reasons.get(s.reason, 0) + 1
        return {
            "kind": self.kind,
            "spaces": {
                name: {"source": p.source_key, **p.counts(), "reported": dict(p.reported)}
                for name, p in sorted(self.spaces.items())
            },
            "skipped": [s.as_dict() for s in self.skipped],
            "skipped_by_reason": reasons,
        }
