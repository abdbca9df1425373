"""Typed records of the insights layer: what goes in, what comes out."""

from __future__ import annotations

import hashlib
import json
import typing
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, TypeVar

from ..errors import InputError

Status = Literal["resolved", "failed"]
STATUSES: tuple[Status, ...] = ("resolved", "failed")

Operation = Literal["KEEP", "ARCHIVE", "REVISE", "PENALIZE", "NOT_APPLICABLE", "NONE"]
"""KEEP, ARCHIVE and REVISE are the paper's edits (§3.4). PENALIZE (record negative evidence,
stay active) is what the offline rules do on a failure that does not yet outweigh an
insight's support; NOT_APPLICABLE (audited, no evidence either way) is what they do when the
task could not have used the insight (insights/applicability.py); NONE is "no edit", what an
ablated controller does instead of a forbidden operation."""
OPERATIONS: tuple[Operation, ...] = typing.get_args(Operation)
REVISION_MARKER = "Applies only when the task mentions:"
"""What starts the condition a REVISE appends to an insight's text."""

FULL_CONTROLLER: frozenset[str] = frozenset({"KEEP", "ARCHIVE", "REVISE", "PENALIZE"})
"""Edits the complete controller may make (the "all" variant of §4.3)."""
ADD_KEEP_ARCHIVE: frozenset[str] = frozenset({"KEEP", "ARCHIVE", "PENALIZE"})
ADD_KEEP: frozenset[str] = frozenset({"KEEP"})
VARIANTS: dict[str, frozenset[str]] = {
    "add+keep": ADD_KEEP,
    "add+keep+archive": ADD_KEEP_ARCHIVE,
    "all": FULL_CONTROLLER,
}


def stable_id(prefix: str, *parts: str) -> str:
    """A deterministic id from its parts, so re-running a step writes the same node."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:20]
    return f"{prefix}-{digest}"


@dataclass(frozen=True)
class Step:
    """One step of a task's interaction graph (G_inter of eq. 1)."""

    action: str
    observation: str
    role: str = "agent"


@dataclass(frozen=True)
class TaskRecord:
    """One line of a `graphmem tasks record` file: a finished task and how it went."""

    id: str
    query: str
    status: Status
    steps: tuple[Step, ...] = ()
    answer: str | None = None
    feedback: str | None = None
    task_type: str | None = None
    """The caller's name for the kind of task; when given, it is the task's structure
    (task_similarity) instead of what is read from its goal and trajectory."""

    def content_hash(self) -> str:
        """Same task, same hash: re-recording an unchanged task is a no-op."""
        fields = asdict(self)
        if fields["task_type"] is None:  # the hash of a task without a type is unchanged
            del fields["task_type"]
        body = json.dumps(fields, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(body.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class RetrievalParams:
    """Knobs of utility-aware retrieval (§3.3) and of query-graph construction."""

    k: int = 5
    """Top-k similar queries (eq. 2)."""
    b: int = 5
    """Top-B insights returned (eq. 10)."""
    lam: float = 1.0
    """Conflict penalty λ of eq. 8."""
    neighbours: int = 3
    """Similarity edges a new query gets to its nearest earlier queries (E_q)."""
    neighbour_min_similarity: float = 0.5
    """Cosine below which no similarity edge is drawn."""
    edge_min_similarity: float = 0.9
    """The fused similarity an edge also needs where a task's kind is learnt (lexical_weight
    above 0, no task_type, no domain pack): an edge joins goals that say nearly the same, not
    two kinds of one structure (find an animal / a plant). Chosen as seed_margin."""
    seed_margin: float = 0.05
    """A similar query (eq. 2) or edge counts only within this margin of the closest one's, a
    seed with standing edges only within it of its closest edge's (Retriever.learnt_query_set).
    Chosen across worlds, each the check of the others (docs/insights.md, "Per world")."""
    lexical_weight: float = 0.5
    """Weight w of the lexical similarity of goals (`lexical.py`: words weighted by their
    inverse document frequency over the space's own goals) in the similarity of two queries,
    (1 − w)·cosine + w·lexical over the `lexical_pool` nearest by cosine; 0 = the cosine
    alone. Chosen as seed_margin."""
    lexical_pool: int = 50
    """How many queries nearest by cosine the fused similarity re-ranks."""
    lexical_override: float = 0.8
    """A recorded query whose goal has at least this lexical similarity to the task's counts as
    similar even when its structure, as read from its goal, differs (above 1: never; never
    across a caller's task_type). Chosen as seed_margin."""
    min_similarity: float = 0.3
    """A recorded query is a seed (eq. 2) only when its similarity to the task (the fused one
    when the goal's text is known) is at least this: a task unlike anything recorded gets no
    insights rather than those of its nearest other kind (0: off): the fused similarity once
    the space has FLOOR_MIN_GOALS goals, the cosine before (retrieval.py). Chosen as seed_margin."""

    def __post_init__(self) -> None:
        if self.k < 1:
            raise InputError("must be at least 1", field="k")
        if self.b < 1:
            raise InputError("must be at least 1", field="b")
        if not self.lam >= 0:
            raise InputError("λ must be a number ≥ 0", field="lambda")
        if self.neighbours < 0:
            raise InputError("must be ≥ 0", field="neighbours")
        if not self.seed_margin >= 0:
            raise InputError("must be a number ≥ 0", field="seed_margin")
        if not 0 <= self.lexical_weight <= 1:
            raise InputError("must be a number from 0 to 1", field="lexical_weight")
        if self.lexical_pool < 1:
            raise InputError("must be at least 1", field="lexical_pool")
        if not self.lexical_override >= 0:
            raise InputError("must be a number ≥ 0", field="lexical_override")
        for name in ("min_similarity", "edge_min_similarity"):
            if not -1 <= getattr(self, name) <= 1:
                raise InputError("must be a number from -1 to 1", field=name)


@dataclass(frozen=True)
class SimilarQuery:
    id: str
    similarity: float


@dataclass(frozen=True)
class Nearby(SimilarQuery):
    """A similar query as retrieval ranks it: `similarity` the cosine fused with the lexical
    similarity of the goals (RetrievalParams.lexical_weight), `cosine` the embeddings'."""

    cosine: float


Similar = TypeVar("Similar", bound=SimilarQuery)


def within_margin(found: Sequence[Similar], margin: float) -> list[Similar]:
    """The queries (closest first) whose similarity is within `margin` of the closest's."""
    if not found:
        return []
    floor = found[0].similarity - margin
    return [q for q in found if q.similarity >= floor]


def seeds_within(found: Sequence[Similar], margin: float, floor: float) -> list[Similar]:
    """The queries that seed retrieval: within the margin, and at least the floor."""
    return [q for q in within_margin(found, margin) if q.similarity >= floor]


@dataclass(frozen=True)
class InsightCandidate:
    """A ranked insight: r = s − λc (eq. 8) over the expanded query set."""

    id: str
    text: str
    score: float
    positive: int
    negative: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Retrieval:
    queries: tuple[SimilarQuery, ...]
    """The top-k similar queries (eq. 2), best first."""
    query_set_size: int
    """|Q̃^S| after the neighbour expansion (eq. 3-4); 0 when no insight was a candidate."""
    insights: tuple[InsightCandidate, ...]
    """Top-B by utility (eq. 10), best first."""

    def as_dict(self) -> dict[str, Any]:
        return {"insights": [c.as_dict() for c in self.insights]}


@dataclass(frozen=True)
class RecordedTask:
    id: str
    outcome: Literal["recorded", "unchanged"]
    retrieved: tuple[InsightCandidate, ...]
    similar: tuple[SimilarQuery, ...]
    feedback: FeedbackResult | None = None
    """The controller's verdict, when recording with learn=True."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "outcome": self.outcome,
            "retrieved": [c.as_dict() for c in self.retrieved],
            "similar": [asdict(q) for q in self.similar],
            "feedback": None if self.feedback is None else self.feedback.as_dict(),
        }


@dataclass(frozen=True)
class RecordSummary:
    space: str
    recorded: int
    unchanged: int
    tasks: tuple[RecordedTask, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "space": self.space,
            "recorded": self.recorded,
            "unchanged": self.unchanged,
            "tasks": [t.as_dict() for t in self.tasks],
        }


# --- the controller ------------------------------------------------------------------------
@dataclass(frozen=True)
class RetrievedInsight:
    """The controller's view of one insight retrieved for the task, as it is now."""

    id: str
    text: str
    active: bool
    rank: int
    score: float
    positive_total: int
    negative_total: int
    positive_queries: tuple[str, ...] = ()
    negative_queries: tuple[str, ...] = ()
    positive_keys: tuple[str | None, ...] = ()
    """The recorded task structure of each positive query ("" none, None not recorded)."""


@dataclass(frozen=True)
class ControllerInput:
    task_id: str
    query: str
    status: Status
    steps: tuple[Step, ...]
    answer: str | None
    feedback: str | None
    retrieved: tuple[RetrievedInsight, ...]
    task_key: str | None = None
    """The structure the task was recorded with ("" = none read; None = not known)."""


@dataclass(frozen=True)
class EditDecision:
    insight_id: str
    operation: Operation
    revised_text: str | None = None
    reason: str = ""


@dataclass(frozen=True)
class AddDecision:
    decision: bool
    text: str | None = None
    reason: str = ""


@dataclass(frozen=True)
class ControllerPlan:
    """The controller's decisions for one task: one edit per retrieved insight, one ADD."""

    edits: tuple[EditDecision, ...]
    add: AddDecision
    decided_by: str

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> ControllerPlan:
        data = json.loads(text)
        return cls(
            edits=tuple(EditDecision(**e) for e in data["edits"]),
            add=AddDecision(**data["add"]),
            decided_by=data["decided_by"],
        )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class FeedbackResult:
    task_id: str
    plan: ControllerPlan
    applied: bool
    """False on a dry run."""
    already_applied: bool
    """The task's feedback had been applied before; nothing changed now."""
    created: tuple[str, ...] = ()
    archived: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "applied": self.applied,
            "already_applied": self.already_applied,
            "decided_by": self.plan.decided_by,
            "edits": [asdict(e) for e in self.plan.edits],
            "add": asdict(self.plan.add),
            "created": list(self.created),
            "archived": list(self.archived),
        }


# --- reading the graph ---------------------------------------------------------------------
@dataclass(frozen=True)
class Insight:
    id: str
    text: str
    active: bool
    created_at: int
    updated_at: int
    archived_at: int | None
    positive: int
    negative: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class EditRecord:
    """One audited change: who (actor, requested_by), when (at), which query, why (reason)."""

    id: str
    insight_id: str
    operation: str
    query_id: str | None
    actor: str
    requested_by: str
    reason: str
    at: int
    related_id: str | None = None
    """The successor of a revised insight, or the predecessor of a revision."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class InsightHistory:
    insight: Insight
    ancestors: tuple[str, ...]
    """Insights this one was revised from, nearest first."""
    successors: tuple[str, ...]
    """Insights revised from this one, nearest first."""
    edits: tuple[EditRecord, ...] = field(default_factory=tuple)
    """Edits of this insight and its whole revision lineage, oldest first."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "insight": self.insight.as_dict(),
            "ancestors": list(self.ancestors),
            "successors": list(self.successors),
            "edits": [e.as_dict() for e in self.edits],
        }


@dataclass(frozen=True)
class TaskView:
    id: str
    query: str
    status: Status
    answer: str | None
    feedback: str | None
    recorded_at: int | None
    feedback_at: int | None
    steps: tuple[Step, ...]
    retrieved: tuple[RetrievedInsight, ...]
    plan: ControllerPlan | None

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["retrieved"] = [
            {
                k: v
                for k, v in asdict(r).items()
                if k not in ("positive_queries", "negative_queries")
            }
            for r in self.retrieved
        ]
        return data
