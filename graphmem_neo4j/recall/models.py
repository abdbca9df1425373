"""Typed inputs and results of recall: one context across the four memory layers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..insights.models import RetrievalParams
from ..tokens import LAYERS, Layer, TokenCounter, estimate_tokens

SECTION_TITLES: dict[str, str] = {
    "facts": "## Facts (current values, from evidence paths)",
    "conversation": "## Conversation (remembered turns)",
    "insights": "## Insights (from similar past tasks)",
    "experience": "## Experience (similar tasks and their lessons)",
}


@dataclass(frozen=True)
class RecallConfig:
    """How recall gathers, scores and packs. See docs/recall.md for the scoring.

    An item's score is `weight[layer] · (dense_share · r + (1 − dense_share) · c_L · n)`:
    r is the item's relevance on the common scale (the query's cosine with the item, or with
    what the item was learnt from, calibrated per embedding model), n the layer's own
    ranking signal divided by its best, and c_L the best r of the layer (so a layer whose best
    candidate is unrelated to the query cannot push its top item up by its own ranking).
    """

    weights: Mapping[str, float] = field(default_factory=lambda: dict.fromkeys(LAYERS, 1.0))
    dense_share: float = 0.15
    """β: the share of an item's own relevance r in its score; the rest is its layer's
    confidence times the layer's own ranking, which knows more (on LoCoMo the conversation
    layer's hybrid ranking beats cosine alone by far; see docs/recall.md)."""
    calibration: Mapping[str, tuple[float, float]] = field(
        default_factory=lambda: {"all-MiniLM-L6-v2": (0.3, 0.75)}
    )
    """Per embedding model, the cosine at or below which an item counts as unrelated (r = 0)
    and the cosine from which it counts as fully relevant (r = 1). all-MiniLM-L6-v2: texts
    that share only a name ("Maya: ..." and a question about Maya) reach ~0.5."""
    default_calibration: tuple[float, float] = (0.15, 0.6)
    """For models not in `calibration` (the hash embedder's unrelated texts stay below 0.15
    at 256 dimensions)."""
    min_score: float = 0.15
    """Items scoring below this are not packed, however much budget is left."""
    conversation_k: int | None = None
    """Turns asked for; None = budget / 25 (10 to 200): enough to fill the budget."""
    facts_k: int = 24
    insights: RetrievalParams = field(
        default_factory=lambda: RetrievalParams(k=5, b=8, min_similarity=0.0, lexical_weight=0.0)
    )
    """The cosine alone and no floor: a recall question is not a task's goal (its words,
    spread over several topics, are no measure of which recorded goal it repeats), and
    recall's own ranking (min_score) decides what is packed."""
    experience_k: int = 3
    experience_t: int = 3
    duplicate_overlap: float = 0.8
    """Two items whose content words overlap this much (of the smaller set) are duplicates."""
    max_item_chars: int = 1200
    """Longer texts are cut (with …) in the context; the node keeps the whole text."""
    count_tokens: TokenCounter = estimate_tokens
    touch: bool = True
    """Packed turns count as accessed (what forgetting's access-frequency term reads)."""

    def band(self, model: str) -> tuple[float, float]:
        return self.calibration.get(model, self.default_calibration)

    def turns_wanted(self, budget: int) -> int:
        if self.conversation_k is not None:
            return self.conversation_k
        return max(10, min(200, budget // 25))


@dataclass(frozen=True)
class Candidate:
    """One thing a layer offers for the context, before ranking."""

    layer: Layer
    label: str
    """The node's label: what to MATCH in Neo4j Browser, with `id` and the space."""
    id: str
    text: str
    relevance: float
    """r ∈ [0, 1]: calibrated cosine, comparable across layers."""
    strength: float
    """n ∈ [0, 1]: the layer's own ranking signal relative to its best candidate."""
    why: str
    details: Mapping[str, Any] = field(default_factory=dict)
    order: tuple[Any, ...] = ()
    """Position inside its section (turns: time, session, seq); empty = by score."""


@dataclass(frozen=True)
class Scored:
    candidate: Candidate
    score: float
    duplicates: tuple[str, ...] = ()
    """`label:id` of lower-scored candidates folded into this one."""

    @property
    def key(self) -> str:
        return f"{self.candidate.label}:{self.candidate.id}"


@dataclass(frozen=True)
class RecallItem:
    """One line of the context, traceable to its node:
    `MATCH (n:<label> {space: <space>, id: <id>}) RETURN n` in Neo4j Browser."""

    rank: int
    layer: Layer
    label: str
    id: str
    text: str
    score: float
    relevance: float
    strength: float
    why: str
    tokens: int
    line: str
    duplicates: tuple[str, ...] = ()
    details: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "layer": self.layer,
            "label": self.label,
            "id": self.id,
            "text": self.text,
            "score": round(self.score, 4),
            "relevance": round(self.relevance, 4),
            "strength": round(self.strength, 4),
            "why": self.why,
            "tokens": self.tokens,
            "duplicates": list(self.duplicates),
            "details": dict(self.details),
        }


@dataclass(frozen=True)
class LayerReport:
    layer: Layer
    candidates: int
    packed: int
    tokens: int
    """Context tokens of this layer's lines and section title."""
    elapsed_ms: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "layer": self.layer,
            "candidates": self.candidates,
            "packed": self.packed,
            "tokens": self.tokens,
            "elapsed_ms": round(self.elapsed_ms, 2),
        }


@dataclass(frozen=True)
class Packing:
    """The outcome of packing scored candidates into a budget (pure logic)."""

    items: tuple[RecallItem, ...]
    context: str
    tokens_by_layer: dict[str, int]
    over_budget: int
    below_min_score: int

    @property
    def tokens_used(self) -> int:
        return sum(self.tokens_by_layer.values())


@dataclass(frozen=True)
class RecallResult:
    query: str
    space: str
    budget_tokens: int
    context: str
    """Prompt-ready text; `tokens_used` (estimated) never exceeds `budget_tokens`."""
    items: tuple[RecallItem, ...]
    tokens_used: int
    tokens_by_layer: dict[str, int]
    layers: tuple[LayerReport, ...]
    duplicates: int
    over_budget: int
    below_min_score: int
    elapsed_ms: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "space": self.space,
            "budget_tokens": self.budget_tokens,
            "tokens_used": self.tokens_used,
            "tokens_by_layer": dict(self.tokens_by_layer),
            "context": self.context,
            "items": [i.as_dict() for i in self.items],
            "layers": [r.as_dict() for r in self.layers],
            "dropped": {
                "duplicates": self.duplicates,
                "over_budget": self.over_budget,
                "below_min_score": self.below_min_score,
            },
            "elapsed_ms": round(self.elapsed_ms, 2),
        }
