"""Hand-made trajectories and graphs for the experience tests."""

from __future__ import annotations

from collections.abc import Sequence

from graphmem_neo4j.experience.graph import build_graph
from graphmem_neo4j.experience.models import DecisionGraph, Step, Trajectory


def steps(*pairs: tuple[str, str]) -> tuple[Step, ...]:
    return tuple(Step(a, o) for a, o in pairs)


def run(
    *pairs: tuple[str, str], task: str = "do it", kind: str = "expert", reward: float = 1.0
) -> Trajectory:
    return Trajectory("t", task, kind, reward, steps(*pairs), "start")  # type: ignore[arg-type]


def chain(actions: Sequence[str], observations: Sequence[str] | None = None) -> DecisionGraph:
    """A graph from a plain action sequence; observation i follows action i."""
    obs = list(observations) if observations is not None else [f"after {a}" for a in actions]
    return build_graph(
        "task", 1.0, "start", [Step(a, o) for a, o in zip(actions, obs, strict=True)]
    )
