"""Typed inputs of the facts layer, its units, and what an ingestion reports (the results
of reading are in results.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..store.params import text_problem
from .keys import format_time, parse_time


class UnitStatus(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    OUTDATED = "outdated"
    PENDING = "pending"


class UpdatePolicy(StrEnum):
    """How a new fact changes memory. `coordinated` is HiGram (§3.3); the other two are the
    baselines of the paper's Table 3, kept for the conflict benchmark."""

    COORDINATED = "coordinated"
    APPEND_ONLY = "append-only"
    RELATION_LEVEL = "relation-level"


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# Relations and categories are identifiers people type; braces, parentheses, quotes, `$`,
# `;` and backticks have no business there (and would read as a query fragment).
_IDENTIFIER = re.compile(r"^[^\W_][\w \-'./&+]*$", re.UNICODE)


def _text(value: str, *, limit: int) -> str:
    text = value.strip()
    if not text:
        raise ValueError("must not be empty")
    if len(text) > limit:
        raise ValueError(f"longer than {limit} characters")
    if _CONTROL.search(text):
        raise ValueError("contains control characters")
    problem = text_problem(text)
    if problem is not None:
        raise ValueError(problem)
    return text


class FactInput(BaseModel):
    """One structured fact: a line of the facts JSONL, or an item of `add_facts`."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    id: str | None = Field(default=None, description="Unit id; derived from the content if unset")
    subject: str
    relation: str
    object: str
    category: str
    context: str | None = Field(default=None, description="Where the fact holds; unset = always")
    valid_from: str | None = Field(default=None, description="ISO-8601; unset = when recorded")
    confidence: float | None = Field(default=None, description="0..1; unset = the default")
    depends_on: list[str] = Field(default_factory=list, description="Ids of supporting units")
    source: str | None = None

    @field_validator("id")
    @classmethod
    def _id(cls, v: str | None) -> str | None:
        if v is None:
            return v
        text = _text(v, limit=200)
        if not re.match(r"^[\w.:\-]+$", text):
            raise ValueError("use letters, digits, '_', '.', ':' or '-'")
        return text

    @field_validator("subject", "object")
    @classmethod
    def _name(cls, v: str) -> str:
        return _text(v, limit=500)

    @field_validator("relation", "category")
    @classmethod
    def _identifier(cls, v: str) -> str:
        text = _text(v, limit=80)
        if not _IDENTIFIER.match(text):
            raise ValueError(
                "use letters, digits, spaces and _ - ' . / & + (no brackets, quotes or $)"
            )
        return text

    @field_validator("context", "source")
    @classmethod
    def _optional_text(cls, v: str | None) -> str | None:
        if v is None:
            return v
        return _text(v, limit=500)

    @field_validator("valid_from")
    @classmethod
    def _time(cls, v: str | None) -> str | None:
        if v is None:
            return v
        parse_time(v)
        return v.strip()

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, v: Any) -> Any:
        # strict mode refuses an int; 1 and 0 are fine confidences.
        if isinstance(v, int) and not isinstance(v, bool):
            return float(v)
        return v

    @field_validator("confidence")
    @classmethod
    def _confidence_range(cls, v: float | None) -> float | None:
        if v is not None and not 0.0 <= v <= 1.0:
            raise ValueError("must be between 0 and 1")
        return v

    @field_validator("depends_on")
    @classmethod
    def _depends(cls, v: list[str]) -> list[str]:
        return [_text(x, limit=200) for x in v]


class FactQuery(BaseModel):
    """A structured question: which value does `subject` have for `relation`?"""

    model_config = ConfigDict(extra="forbid", frozen=True)

    subject: str
    relation: str | None = None
    category: str | None = None
    context: str | None = None
    as_of: str | None = None


@dataclass(frozen=True)
class Fact:
    """A validated, normalised fact about to become a MemoryUnit."""

    id: str
    subject: str
    subject_key: str
    relation: str
    relation_key: str
    object: str
    object_key: str
    category: str
    category_key: str
    context: str | None
    context_key: str | None
    confidence: float
    valid_from: int
    valid_from_given: bool
    depends_on: tuple[str, ...]
    source: str | None
    text: str
    line: int | None = None
    id_given: bool = False

    @property
    def key(self) -> tuple[str, str, str | None]:
        """The slot a value fills: (subject, relation, context). Values of one slot conflict."""
        return (self.subject_key, self.relation_key, self.context_key)

    def fingerprint(self) -> tuple[Any, ...]:
        """What must match for a unit with this id to be the same fact."""
        return (
            self.subject_key,
            self.relation_key,
            self.object_key,
            self.category_key,
            self.context_key,
        )


@dataclass(frozen=True)
class TempUnit:
    """A temporary MemoryUnit built from a query or an update (§3.2): it follows the unit
    schema but stays outside the graph while memory is localised."""

    subjects: dict[str, float]
    """Anchored subject keys and how well each matches (1.0 exact, a similarity otherwise)."""
    relation_key: str | None
    relation_terms: frozenset[str]
    category_key: str | None
    context_key: str | None
    moment: int
    """The time the query or update is about (temporal validity is judged at it)."""
    text: str
    embedding: tuple[float, ...] | None = None
    object_key: str | None = None


@dataclass(frozen=True)
class MemoryUnit:
    """A unit as stored."""

    id: str
    subject: str
    relation: str
    object: str
    category: str
    context: str | None
    status: UnitStatus
    confidence: float
    valid_from: int
    valid_to: int | None
    recorded_at: int
    source: str | None
    text: str
    subject_key: str
    relation_key: str
    object_key: str
    category_key: str
    context_key: str | None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> MemoryUnit:
        return cls(
            id=str(row["id"]),
            subject=str(row["subject"]),
            relation=str(row["relation"]),
            object=str(row["object"]),
            category=str(row["category"]),
            context=row.get("context"),
            status=UnitStatus(row["status"]),
            confidence=float(row["confidence"]),
            valid_from=int(row["valid_from"]),
            valid_to=None if row.get("valid_to") is None else int(row["valid_to"]),
            recorded_at=int(row["recorded_at"]),
            source=row.get("source"),
            text=str(row["text"]),
            subject_key=str(row["subject_key"]),
            relation_key=str(row["relation_key"]),
            object_key=str(row["object_key"]),
            category_key=str(row["category_key"]),
            context_key=row.get("context_key"),
        )

    @property
    def key(self) -> tuple[str, str, str | None]:
        return (self.subject_key, self.relation_key, self.context_key)

    def valid_at(self, moment: int) -> bool:
        return self.valid_from <= moment and (self.valid_to is None or moment < self.valid_to)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "subject": self.subject,
            "relation": self.relation,
            "object": self.object,
            "category": self.category,
            "context": self.context,
            "status": self.status.value,
            "valid_from": format_time(self.valid_from),
            "valid_to": format_time(self.valid_to),
            "confidence": self.confidence,
            "recorded_at": format_time(self.recorded_at),
            "source": self.source,
            "text": self.text,
        }


@dataclass(frozen=True)
class LocalisationStats:
    anchors: int = 0
    candidate_micrographs: int = 0
    micrographs: int = 0
    units_read: int = 0
    """MemoryUnit rows the localisation queries returned (support subgraph and paths)."""
    units_scanned: int = 0
    """Units (any status) under the anchored subjects: what the engine walks to find them."""
    paths: int = 0
    elapsed_ms: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "anchors": self.anchors,
            "candidate_micrographs": self.candidate_micrographs,
            "micrographs": self.micrographs,
            "units_read": self.units_read,
            "units_scanned": self.units_scanned,
            "paths": self.paths,
            "elapsed_ms": round(self.elapsed_ms, 3),
        }


@dataclass(frozen=True)
class FactOutcome:
    """What one fact did to memory."""

    id: str
    line: int | None
    action: str
    """created | unchanged | pending (contested, not accepted) | historical (an older value)."""
    status: UnitStatus
    superseded: tuple[str, ...] = ()
    outdated: tuple[str, ...] = ()
    reactivated: tuple[str, ...] = ()
    evidence_path: tuple[str, ...] = ()
    units_read: int = 0
    """Units read by the whole update: support subgraph, slot versions, dependents."""
    localisation: LocalisationStats | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "line": self.line,
            "action": self.action,
            "status": self.status.value,
            "superseded": list(self.superseded),
            "outdated": list(self.outdated),
            "reactivated": list(self.reactivated),
            "evidence_path": list(self.evidence_path),
            "units_read": self.units_read,
            "localisation": None if self.localisation is None else self.localisation.as_dict(),
        }


@dataclass(frozen=True)
class IngestReport:
    space: str
    outcomes: tuple[FactOutcome, ...]

    def counts(self) -> dict[str, int]:
        found: dict[str, int] = {"facts": len(self.outcomes)}
        for outcome in self.outcomes:
            found[outcome.action] = found.get(outcome.action, 0) + 1
        found["superseded"] = sum(len(o.superseded) for o in self.outcomes)
        found["outdated"] = sum(len(o.outdated) for o in self.outcomes)
        return found

    def as_dict(self) -> dict[str, Any]:
        return {
            "space": self.space,
            "counts": self.counts(),
            "units": [o.as_dict() for o in self.outcomes],
        }


def view_dict(unit: MemoryUnit) -> dict[str, Any]:
    """The fields of `graphmem facts current --json`."""
    full = unit.as_dict()
    keys = (
        "id subject relation object category context status valid_from valid_to confidence"
    ).split()
    return {k: full[k] for k in keys}
