"""Typed records of the conversation layer: what goes in, what comes out, and the knobs."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

SearchMode = Literal["hybrid", "sf", "vector", "fulltext"]
SEARCH_MODES: tuple[SearchMode, ...] = ("hybrid", "sf", "vector", "fulltext")
Ranking = Literal["auto", "learned", "fusion"]
RANKINGS: tuple[Ranking, ...] = ("auto", "learned", "fusion")


@dataclass(frozen=True)
class TurnInput:
    """One conversational turn to remember.

    `turn_id` is unique within a space; ingesting the same id again updates the turn in place.
    `timestamp` is epoch milliseconds (None when the source has no time).
    """

    session: str
    turn_id: str
    speaker: str
    text: str
    timestamp: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str | None = None
    """Where it came from (file name), for error messages."""
    line: int | None = None


@dataclass(frozen=True)
class ExtractedEntity:
    name: str
    type: str


@dataclass(frozen=True)
class ExtractedRelation:
    source: str
    """Entity name (as in `ExtractedEntity.name`)."""
    target: str
    type: str
    fact: str


@dataclass(frozen=True)
class TurnExtraction:
    entities: tuple[ExtractedEntity, ...] = ()
    relations: tuple[ExtractedRelation, ...] = ()


@dataclass(frozen=True)
class IngestReport:
    space: str
    turns_read: int
    turns_written: int
    turns_skipped: int
    """Already stored with the same content (a re-run or a resumed run)."""
    sessions: int
    entities_created: int
    entities_merged: int
    """Extracted names folded into an existing entity (title hash or embedding ≥ threshold)."""
    mentions: int
    relations: int
    forget_runs: tuple[ForgetReport, ...] = ()
    extractor: str = "offline"
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["forget_runs"] = [r.as_dict() for r in self.forget_runs]
        return data


@dataclass(frozen=True)
class SearchHit:
    turn_id: str
    session: str
    speaker: str
    text: str
    score: float
    via: tuple[str, ...]
    """Which candidate sources found it: vector, fulltext, graph, context, sf."""
    time: int | None = None
    seq: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "turn_id": self.turn_id,
            "session": self.session,
            "speaker": self.speaker,
            "text": self.text,
            "score": round(self.score, 6),
            "via": list(self.via),
            "time": self.time,
        }


@dataclass(frozen=True)
class SubgraphNode:
    id: str
    name: str
    type: str
    hop: int
    similarity: float | None = None


@dataclass(frozen=True)
class SubgraphEdge:
    source: str
    target: str
    type: str
    fact: str
    turn_id: str | None


@dataclass(frozen=True)
class SearchResult:
    query: str
    space: str
    mode: SearchMode
    hits: tuple[SearchHit, ...]
    nodes: tuple[SubgraphNode, ...] = ()
    """sf mode: the retrieved entity subgraph."""
    edges: tuple[SubgraphEdge, ...] = ()
    speakers: frozenset[str] = frozenset()
    """The space's participants when it was searched (what recall's word coverage ignores)."""
    clock: int | None = None
    """The space's clock when it was searched: what a later access count is stamped with."""
    ranked_by: str = ""
    """Hybrid mode: "fusion", or the learned ranker that ordered the hits, named by its file
    (all-MiniLM-L6-v2 for LoCoMo's, all-MiniLM-L6-v2+longmemeval for user-assistant chat);
    empty when nothing was found or in other modes."""

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "query": self.query,
            "space": self.space,
            "mode": self.mode,
            "hits": [h.as_dict() for h in self.hits],
        }
        if self.ranked_by:
            data["ranked_by"] = self.ranked_by
        if self.mode == "sf":
            data["nodes"] = [asdict(n) for n in self.nodes]
            data["edges"] = [asdict(e) for e in self.edges]
        return data


@dataclass(frozen=True)
class ForgetReport:
    space: str
    run_id: str
    dry_run: bool
    archived: bool
    candidates: int
    """Turn and Entity nodes scored."""
    nodes_removed: int
    edges_removed: int
    bytes_removed: int
    """Estimated stored size: property JSON plus 4 bytes per embedding component."""
    removed_by_label: dict[str, int]
    threshold: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class RestoreReport:
    space: str
    nodes_restored: int
    edges_restored: int
    runs: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ForgettingConfig:
    """Importance = weighted recency, access frequency, degree centrality and age
    (selective-forgetting paper, Fig. 1 "retention stage"); nodes below `threshold` go.

    Times are counted in turns of the space (the paper's "turn age"), so a replayed history
    with old timestamps is scored like a live one.
    """

    w_recency: float = 0.3
    w_frequency: float = 0.25
    w_degree: float = 0.3
    w_age: float = 0.15
    recency_turns: float = 800.0
    """e-folding of recency: turns since the node was last mentioned or retrieved."""
    age_turns: float = 1600.0
    """e-folding of age: turns since the node was created."""
    frequency_scale: float = 2.0
    """Accesses at which the frequency term reaches 1 − 1/e."""
    degree_ref: int = 8
    """Degree at which the centrality term reaches 1 (log-scaled)."""
    threshold: float = 0.2
    min_age_turns: int = 200
    """Nodes younger than this are never pruned."""
    every: int = 400
    """Run after this many ingested turns (0 = only on `graphmem forget`)."""
    archive: bool = True


@dataclass(frozen=True)
class FusionWeights:
    """How hybrid mode combines its candidate sources (see fusion.py for the reasoning)."""

    lexical: float = 1.0
    """BM25, divided by the best BM25 score of the query: in [0, 1]."""
    dense: float = 3.0
    """Raw cosine; MiniLM cosines spread over ~0.4 between noise and a match, so about 3 puts a
    strong semantic match on the same footing as the best lexical match (3.0 chosen by
    leave-one-conversation-out on LoCoMo dev, with `previous` and `speaker`:
    docs/conversation.md, "The core constants"). These are MiniLM's; a model with its own
    constants takes them from MODEL_WEIGHTS."""
    dense_relative: bool = False
    """Score the dense source by where a turn's cosine sits between the dense list's last and
    best entry (in [0, 1], like the other sources) instead of by the raw cosine: the dense
    weight then means the same on every model's cosine scale."""
    graph: float = 0.0
    """Entity-graph evidence, divided by its best score: in [0, 1]. 0: off by default (its
    per-question gain on LoCoMo dev has a 95% interval holding 0, and it lowers one of the three
    held-out conversations: docs/conversation.md, "Which rules are on"); 0.3 turns it on."""
    speaker: float = 0.0
    """Relative boost for turns spoken by a person the query names. 0: leave-one-conversation-out
    on LoCoMo dev chose none in every fold; the turn embedding ("Speaker: text") already carries
    the name (docs/conversation.md, "The core constants")."""
    speaker_several: float = 0.0
    """The speaker boost for a question asking for several facts (text.asks_for_several). 0:
    off by default (interval holds 0: docs/conversation.md, "Which rules are on")."""
    previous: float = 0.7
    """Share of the preceding turn's excess score a turn inherits (an answer follows its
    question; chosen by leave-one-conversation-out on LoCoMo dev)."""
    following: float = 0.1
    time: float = 0.3
    """Added for turns inside a time range the query names."""
    dated: float = 0.0
    """Added, for a question asking when (text.asks_when), to turns that mention a date entity:
    a date they name or a relative phrase resolved at ingestion (dated_turns.cypher). 0: off by
    default (interval holds 0, one held-out conversation loses: docs/conversation.md, "Which
    rules are on"); 0.3 turns it on."""
    spread: float = 0.0
    """Spreading activation from the first-stage best turns through the entities they share
    with other turns (search_spread.cypher), divided by its best score: in [0, 1]. 0: off
    (leave-one-conversation-out on LoCoMo dev chose 0 in every fold once the concept source
    was there, see docs/conversation.md)."""
    seeds: int = 5
    """First-stage turns that seed the spreading activation (0: no spreading)."""
    spread_only_several: bool = True
    """Spread only for questions asking for several facts (text.asks_for_several)."""
    spread_speakers: bool = True
    """When the question names participants, spread only to their turns."""
    concept: float = 0.0
    """Turns mentioning entities whose names are close in embedding space to the query's words
    or to the whole query (search_concepts.cypher), divided by its best score: in [0, 1]. 0:
    off by default (interval holds 0: docs/conversation.md, "Which rules are on"); 0.6 turns
    it on."""
    concept_roots: int = 5
    """Entities taken per query word from the entity vector index (0: no concept source)."""
    concept_probes: int = 8
    """Query phrases (text.query_phrases) embedded as probes besides the whole query."""
    concept_min_similarity: float = 0.35
    """Cosine an entity name needs with a query word (or the query) to count."""
    concept_only_several: bool = True
    """Use the concept source only for questions asking for several facts."""
    diversity: float = 0.0
    """For a question asking for several facts, each further turn from a session already in
    the list has its score multiplied by (1 − diversity) once more. 0: off (measured on
    LoCoMo dev: it lowers recall, see docs/conversation.md)."""
    bm25_k1: float = 1.2
    bm25_b: float = 0.75


@dataclass(frozen=True)
class ConversationConfig:
    """The layer's knobs. Defaults follow the paper (Table 3) where it gives a value."""

    dedup_threshold: float = 0.92
    """Entities whose name embeddings have cosine ≥ this are one entity (paper: τ_dedup)."""
    sf_roots: int = 5
    sf_min_similarity: float = 0.75
    sf_hops: int = 2
    sf_node_cap: int = 15
    candidates: int = 100
    """Per candidate source in hybrid mode."""
    exact_scan_turns: int = 4000
    """Spaces up to this many turns are scanned exactly instead of through the ANN index."""
    weights: FusionWeights = field(default_factory=FusionWeights)
    forgetting: ForgettingConfig = field(default_factory=ForgettingConfig)
    batch_size: int = 256
    activities: bool = False
    """The offline extractor also takes a gerund after a verb of doing or liking ("went
    camping", "been running") as an activity entity (extract.py)."""
    ranking: Ranking = "auto"
    """How hybrid mode orders its candidates: "learned" (the logistic ranker shipped for the
    embedding model, ranker.py), "fusion" (the linear fusion and its rules, fusion.py), or
    "auto": the learned ranker when the model has one and `weights` are the model's defaults
    (changed weights ask for the fusion), else the fusion."""
    coreference: bool = False
    """A turn opening with a pronoun also mentions the entities of its speaker's previous
    turn (coref.py). Off: on LoCoMo dev it did not raise recall (docs/conversation.md)."""


MODEL_WEIGHTS: dict[str, dict[str, Any]] = {
    # bge's cosines sit high and close together: its dense score is taken relative to the
    # dense list (FusionWeights.dense_relative) and weighs as much as the best BM25 match.
    "bge-small-en-v1.5": {"dense": 1.0, "dense_relative": True, "previous": 0.5},
}
"""Fusion constants that depend on an embedding model's cosine scale, per model name (the
last part of its path), each chosen by leave-one-conversation-out on LoCoMo dev for that model
(benchmarks/fusion_cv.py; docs/conversation.md, "Embedding models"). A model without an entry
takes the FusionWeights defaults, which were chosen for all-MiniLM-L6-v2."""


def weights_for_model(model: str, weights: FusionWeights | None = None) -> FusionWeights:
    """`weights` (the defaults when None) with the constants chosen for `model`."""
    base = weights or FusionWeights()
    chosen = MODEL_WEIGHTS.get(model.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1])
    return replace(base, **chosen) if chosen else base


def config_for_model(model: str) -> ConversationConfig:
    """The default configuration for a store searched with `model`."""
    return ConversationConfig(weights=weights_for_model(model))
