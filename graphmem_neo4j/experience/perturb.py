"""Synthetic failed copies of expert trajectories, with the edit path that undoes them: the
ground truth of the edit-path recovery benchmark (benchmarks/experience_matching.py).

Each perturbation touches an action that occurs once in the trajectory, so the injected change
is unambiguous; the true node matching pairs equal actions and the replaced action with its
original.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Literal

from .diff import edit_path
from .graph import trajectory_graph
from .matching import Mapping
from .models import DecisionGraph, EditOp, Step, Trajectory
from .normalize import is_uninformative, normalize_action

PerturbKind = Literal["replace", "delete", "insert_invalid", "swap"]
PERTURB_KINDS: tuple[PerturbKind, ...] = ("replace", "delete", "insert_invalid", "swap")
INVALID_OBSERVATION = "Nothing happens."
_THING = re.compile(r"[a-z]+ \d+")


@dataclass(frozen=True)
class Perturbation:
    kind: PerturbKind
    expert: Trajectory
    perturbed: Trajectory
    renamed: dict[str, str]
    """Perturbed action text → the expert action it stands for (replacements)."""

    def true_mapping(self, g1: DecisionGraph, g2: DecisionGraph) -> Mapping:
        by_key = {n.key: n.label for n in g2.nodes}
        by_raw = {n.raw: n.label for n in g2.nodes}
        mapping: Mapping = []
        for node in g1.nodes:
            if node.key in by_key:
                mapping.append(by_key[node.key])
            elif node.raw in self.renamed:
                mapping.append(by_raw[self.renamed[node.raw]])
            else:
                mapping.append(None)
        return mapping

    def true_edit_path(self) -> list[EditOp]:
        g1, g2 = trajectory_graph(self.perturbed), trajectory_graph(self.expert)
        return edit_path(g1, g2, self.true_mapping(g1, g2))


def _unique_valid_steps(trajectory: Trajectory) -> list[int]:
    counts = Counter(normalize_action(s.action).key for s in trajectory.steps)
    return [
        i
        for i, s in enumerate(trajectory.steps)
        if counts[normalize_action(s.action).key] == 1 and not is_uninformative(s.observation)
    ]


def _things(trajectory: Trajectory) -> list[str]:
    """Every "kind N" the trajectory mentions: the environment's vocabulary."""
    text = " ".join(
        [trajectory.initial_observation]
        + [s.action for s in trajectory.steps]
        + [s.observation for s in trajectory.steps]
    ).lower()
    return sorted(set(_THING.findall(text)))


def _mutant(action: str, trajectory: Trajectory, rng: random.Random, taken: set[str]) -> str | None:
    """The action with one of its things swapped for another thing of the environment, such
    that the result is an action the trajectory never takes."""
    inside = _THING.findall(action.lower())
    things = _things(trajectory)
    if not inside or len(things) < 2:
        return None
    for _ in range(30):
        old = rng.choice(inside)
        new = rng.choice(things)
        if new == old:
            continue
        candidate = action.lower().replace(old, new, 1)
        if normalize_action(candidate).key not in taken:
            return candidate
    return None


def perturb(trajectory: Trajectory, kind: PerturbKind, rng: random.Random) -> Perturbation | None:
    """A perturbed copy (kind exploration, reward 0), or None when the trajectory offers no
    place for this kind of change."""
    steps = list(trajectory.steps)
    taken = {normalize_action(s.action).key for s in steps}
    unique = _unique_valid_steps(trajectory)
    renamed: dict[str, str] = {}
    if kind == "replace":
        if not unique:
            return None
        i = rng.choice(unique)
        new_action = _mutant(steps[i].action, trajectory, rng, taken)
        if new_action is None:
            return None
        renamed[new_action] = " ".join(steps[i].action.split())
        steps[i] = Step(new_action, steps[i].observation)
    elif kind == "delete":
        if not unique or len(steps) < 2:
            return None
        del steps[rng.choice(unique)]
    elif kind == "insert_invalid":
        at = rng.randrange(len(steps) + 1)
        added: list[Step] = []
        for _ in range(rng.randint(1, 3)):
            base = rng.choice(trajectory.steps).action
            action = _mutant(base, trajectory, rng, taken)
            if action is None:
                continue
            taken.add(normalize_action(action).key)
            added.append(Step(action, INVALID_OBSERVATION))
        if not added:
            return None
        steps[at:at] = added
    elif kind == "swap":
        spots = [i for i in unique if i + 1 in unique]
        if not spots:
            return None
        i = rng.choice(spots)
        steps[i], steps[i + 1] = steps[i + 1], steps[i]
    else:
        raise ValueError(f"unknown perturbation {kind!r}")
    perturbed = replace(trajectory, kind="exploration", reward=0.0, steps=tuple(steps), metadata={})
    return Perturbation(kind, trajectory, perturbed, renamed)
