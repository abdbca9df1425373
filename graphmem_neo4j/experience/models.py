"""Typed records of the experience layer: trajectories, action decision graphs, graph diffs,
insights and retrieval results (Experience Memory Graph, §4)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["expert", "exploration"]
KINDS: tuple[Kind, ...] = ("expert", "exploration")
EditOpName = Literal[
    "delete_node", "insert_node", "relabel_node", "delete_edge", "insert_edge", "relabel_edge"
]
MatchMethod = Literal["exact", "approximate"]
InsightSource = Literal["template", "llm"]


@dataclass(frozen=True)
class Step:
    """One action the agent took and the observation the environment answered with."""

    action: str
    observation: str


@dataclass(frozen=True)
class Trajectory:
    """τ = (q, o_0, a_1, o_1, …, a_m, o_m) with its reward r ∈ [0, 1] (§3)."""

    id: str
    """The caller's id; stored as `<kind>:<id>` so an exploration and an expert run of the same
    game may share it."""
    task: str
    kind: Kind
    reward: float
    steps: tuple[Step, ...]
    initial_observation: str = ""
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def stored_id(self) -> str:
        return f"{self.kind}:{self.id}"


@dataclass(frozen=True)
class ActionKey:
    """The normalised action k = (type, object, receptacle) of §4.1.2."""

    type: str
    object: str = ""
    receptacle: str = ""

    @property
    def key(self) -> str:
        return f"{self.type}|{self.object}|{self.receptacle}"


@dataclass(frozen=True)
class DecisionNode:
    """v_i = (k_i, a_i^raw, ℓ_n(v_i)); index 0 is the virtual INIT node (label 0)."""

    label: int
    action: ActionKey
    raw: str

    @property
    def key(self) -> str:
        return self.action.key

    @property
    def is_init(self) -> bool:
        return self.label == 0


@dataclass(frozen=True)
class DecisionEdge:
    """e = ((v_i, v_j), s, ℓ_e(e)): the action v_j was taken after the (normalised) observation
    s; `source`/`target` are node labels. Identical (source, target, state) triples are one edge
    and `steps` lists every step (1-based) that took it."""

    source: int
    target: int
    label: int
    state: str
    observation: str
    """The raw observation text the first time this edge was taken."""
    valid: bool
    """False when the action met an uninformative observation (a parallel failed attempt)."""
    steps: tuple[int, ...]


@dataclass(frozen=True)
class DecisionGraph:
    """G = (V, E, q, r): nodes indexed by their label (INIT first)."""

    task: str
    reward: float
    nodes: tuple[DecisionNode, ...]
    edges: tuple[DecisionEdge, ...]

    def edge_map(self) -> dict[tuple[int, int], set[str]]:
        """(source, target) → the states labelling edges between them."""
        out: dict[tuple[int, int], set[str]] = {}
        for e in self.edges:
            out.setdefault((e.source, e.target), set()).add(e.state)
        return out


@dataclass(frozen=True)
class Matching:
    """A node matching M: V → V' ∪ {ε} (§4.2.1) and the edit cost it implies."""

    mapping: tuple[int | None, ...]
    """mapping[u] = the matched node of the second graph, or None when u is deleted."""
    cost: float
    method: MatchMethod


@dataclass(frozen=True)
class EditOp:
    """One operation of the graph edit path (Algorithm 3). Actions are raw action texts;
    `observation` is the normalised observation on the edge (for node operations: the one that
    preceded the action)."""

    op: EditOpName
    action: str | None = None
    new_action: str | None = None
    source: str | None = None
    target: str | None = None
    observation: str | None = None
    new_observation: str | None = None

    def as_dict(self) -> dict[str, str]:
        out: dict[str, str] = {"op": self.op}
        for name in ("action", "new_action", "source", "target", "observation", "new_observation"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out


@dataclass(frozen=True)
class CommonEdge:
    """An edge of the common subgraph (Algorithm 2), named by the expert's raw action texts."""

    source: str
    target: str
    observation: str
    step: int
    """First expert step that took it: orders the workflow."""

    def as_dict(self) -> dict[str, str]:
        return {"source": self.source, "target": self.target, "observation": self.observation}


@dataclass(frozen=True)
class GraphDiff:
    """Common subgraph + graph edit path of an exploration graph against an expert graph."""

    common_edges: tuple[CommonEdge, ...]
    edit_path: tuple[EditOp, ...]
    matching: Matching

    @property
    def cost(self) -> float:
        return self.matching.cost

    def as_dict(self) -> dict[str, Any]:
        return {
            "common_edges": [e.as_dict() for e in self.common_edges],
            "edit_path": [op.as_dict() for op in self.edit_path],
            "method": self.matching.method,
            "cost": self.matching.cost,
        }


@dataclass(frozen=True)
class TaskInsights:
    """Intra-task insights stored on a Task node (§4.2.1)."""

    insights: tuple[str, ...]
    workflow: tuple[str, ...]
    source: InsightSource


@dataclass(frozen=True)
class CrossTaskInsight:
    """A cross-task insight stored on a Task–Task edge (§4.2.2): the workflow two similar
    tasks' expert graphs share, with the things each task names replaced by <1>, <2>, …"""

    insight: str
    workflow: tuple[str, ...]
    shared_edges: int
    source: InsightSource


@dataclass(frozen=True)
class AddReport:
    space: str
    trajectories: int
    added: int
    unchanged: int
    replaced: int
    tasks: int
    actions: int
    edges: int
    matched_pairs: int
    similar_edges: int
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class RetrievedTask:
    id: str
    text: str
    score: float
    insights: tuple[str, ...]
    workflow: tuple[str, ...]
    trajectories: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "score": self.score,
            "insights": list(self.insights),
            "workflow": list(self.workflow),
            "trajectories": self.trajectories,
        }


@dataclass(frozen=True)
class RetrievedEdge:
    source: str
    target: str
    source_text: str
    target_text: str
    score: float
    similarity: float
    insight: str
    workflow: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "source_text": self.source_text,
            "target_text": self.target_text,
            "score": self.score,
            "similarity": self.similarity,
            "insight": self.insight,
            "workflow": list(self.workflow),
        }


@dataclass(frozen=True)
class Guidance:
    """What retrieval returns (§4.3): top-K tasks, top-T cross-task edges, and the text an
    agent can put in its prompt."""

    query: str
    tasks: tuple[RetrievedTask, ...]
    edges: tuple[RetrievedEdge, ...]
    roles: dict[str, str]
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "tasks": [t.as_dict() for t in self.tasks],
            "edges": [e.as_dict() for e in self.edges],
            "roles": dict(self.roles),
            "guidance": self.text,
        }
