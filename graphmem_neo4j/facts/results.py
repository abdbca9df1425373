"""Typed results of reading the facts layer: scored evidence paths, localisations, hits,
answers, dependency chains and history (§3.2)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .models import LocalisationStats, MemoryUnit


@dataclass(frozen=True)
class PathScore:
    """φ_H of eq. 8 and its four parts."""

    total: float
    attribute: float
    dependency: float
    temporal: float
    context: float

    def as_dict(self) -> dict[str, float]:
        return {
            "total": round(self.total, 4),
            "attribute": round(self.attribute, 4),
            "dependency": round(self.dependency, 4),
            "temporal": round(self.temporal, 4),
            "context": round(self.context, 4),
        }


@dataclass(frozen=True)
class EvidencePath:
    """A connected chain of active units (§3.2) with its score; `head` best matches the query."""

    units: tuple[MemoryUnit, ...]
    edges: tuple[tuple[str, str], ...]
    score: PathScore
    head: MemoryUnit

    def as_dict(self) -> dict[str, Any]:
        return {
            "head": self.head.id,
            "score": self.score.as_dict(),
            "units": [u.as_dict() for u in self.units],
            "edges": [{"from": a, "to": b} for a, b in self.edges],
        }


@dataclass(frozen=True)
class Localisation:
    """The result of MicroGraph-based path-level localisation (§3.2)."""

    micrographs: tuple[tuple[str, str, float], ...]
    """Selected (subject key, category key, R) pairs, best first (eq. 7)."""
    support: tuple[MemoryUnit, ...]
    """Active units of the support subgraph G_S."""
    paths: tuple[EvidencePath, ...]
    """Candidate evidence paths, best first (eq. 8)."""
    stats: LocalisationStats = field(default_factory=LocalisationStats)

    @property
    def best(self) -> EvidencePath | None:
        return self.paths[0] if self.paths else None


@dataclass(frozen=True)
class FactHit:
    """One ranked candidate of `search`."""

    unit: MemoryUnit
    score: float
    rank: int

    def as_dict(self) -> dict[str, Any]:
        return {"rank": self.rank, "score": round(self.score, 4), **self.unit.as_dict()}


@dataclass(frozen=True)
class AskResult:
    query: str
    answer: MemoryUnit | None
    path: EvidencePath | None
    hits: tuple[FactHit, ...]
    stats: LocalisationStats

    def as_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "answer": None if self.answer is None else self.answer.object,
            "answer_unit": None if self.answer is None else self.answer.as_dict(),
            "path": None if self.path is None else self.path.as_dict(),
            "units": [] if self.path is None else [u.as_dict() for u in self.path.units],
            "hits": [h.as_dict() for h in self.hits],
            "stats": self.stats.as_dict(),
        }


@dataclass(frozen=True)
class DependencyChain:
    """A unit with what supports it (upstream) and what depends on it (downstream)."""

    unit: MemoryUnit
    supporters: tuple[MemoryUnit, ...]
    dependents: tuple[MemoryUnit, ...]
    edges: tuple[tuple[str, str], ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "unit": self.unit.as_dict(),
            "supporters": [u.as_dict() for u in self.supporters],
            "dependents": [u.as_dict() for u in self.dependents],
            "edges": [{"from": a, "to": b} for a, b in self.edges],
        }


@dataclass(frozen=True)
class HistoryEntry:
    """One version of a fact with what replaced it (SUPERSEDES) or what it contested."""

    unit: MemoryUnit
    superseded_by: str | None
    contests: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.unit.as_dict(),
            "superseded_by": self.superseded_by,
            "contests": self.contests,
        }
