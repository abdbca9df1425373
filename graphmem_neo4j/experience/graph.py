"""Trajectory → action decision graph (§4.1.2, the paper's Algorithm 1, re-derived from its
description: the appendix is not in our copy)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .models import ActionKey, DecisionEdge, DecisionGraph, DecisionNode, Step, Trajectory
from .normalize import (
    abstract_observation,
    abstract_text,
    is_uninformative,
    names_of,
    normalize_action,
    normalize_observation,
    task_roles,
)

INIT_KEY = ActionKey("INIT")
"""Upper case: no normalised action can collide with it."""
INIT_RAW = "INIT"


@dataclass
class _EdgeDraft:
    label: int
    observation: str
    valid: bool
    steps: list[int] = field(default_factory=list)


def build_graph(
    task: str,
    reward: float,
    initial_observation: str,
    steps: Sequence[Step],
    *,
    action_key: Callable[[str], ActionKey] = normalize_action,
    action_text: Callable[[str], str] = lambda raw: " ".join(raw.split()),
    state_of: Callable[[str], str] = normalize_observation,
) -> DecisionGraph:
    """One scan of the trajectory, keeping the current valid state s (initially the normalised
    o_0) and the node `last` that produced it (initially INIT):

    - node reuse: a dictionary Φ maps each normalised action to its node;
    - each action gets an edge last → node carrying s, the observation it was taken after;
    - an action met by an uninformative observation leaves s and `last` unchanged, so
      consecutive invalid actions hang side by side from the last valid node.

    Node labels number action tuples in order of first appearance (INIT = 0); edge labels
    number distinct states the same way.
    """
    nodes: list[DecisionNode] = [DecisionNode(0, INIT_KEY, INIT_RAW)]
    phi: dict[str, int] = {INIT_KEY.key: 0}
    state_labels: dict[str, int] = {}
    edges: dict[tuple[int, int, str], _EdgeDraft] = {}
    state, state_raw, last = state_of(initial_observation), initial_observation, 0
    for number, step in enumerate(steps, start=1):
        key = action_key(step.action)
        node = phi.get(key.key)
        if node is None:
            node = len(nodes)
            phi[key.key] = node
            nodes.append(DecisionNode(node, key, action_text(step.action)))
        valid = not is_uninformative(step.observation)
        label = state_labels.setdefault(state, len(state_labels) + 1)
        draft = edges.setdefault(
            (last, node, state), _EdgeDraft(label, " ".join(state_raw.split()), valid)
        )
        draft.steps.append(number)
        if valid:
            state, state_raw, last = state_of(step.observation), step.observation, node
    return DecisionGraph(
        task=task,
        reward=reward,
        nodes=tuple(nodes),
        edges=tuple(
            DecisionEdge(src, dst, d.label, st, d.observation, d.valid, tuple(d.steps))
            for (src, dst, st), d in edges.items()
        ),
    )


def trajectory_graph(trajectory: Trajectory) -> DecisionGraph:
    """The action decision graph of a trajectory, with concrete labels (instance numbers kept):
    what exploration-vs-expert matching of the same task compares."""
    return build_graph(
        trajectory.task, trajectory.reward, trajectory.initial_observation, trajectory.steps
    )


def abstract_graph(trajectory: Trajectory) -> DecisionGraph:
    """The graph rebuilt on abstract labels: the things the task names become roles (<1>,
    <2>, …), other things their kind without instance number, and "you see …" lists only the
    roles in them. Expert graphs of different tasks are matched on these (§4.2.2)."""
    names = names_of(trajectory.steps, trajectory.initial_observation)
    roles = task_roles(trajectory.task, names)

    def text(raw: str) -> str:
        return abstract_text(" ".join(raw.split()).lower(), roles, names)

    return build_graph(
        trajectory.task,
        trajectory.reward,
        trajectory.initial_observation,
        trajectory.steps,
        action_key=lambda raw: normalize_action(text(raw)),
        action_text=text,
        state_of=lambda obs: abstract_observation(normalize_observation(obs), roles, names),
    )
