"""What makes two tasks similar: one notion, shared by the insights and experience layers.

A sentence embedding finds goals of one world all alike ("put a cool tomato in microwave" and
"put a tomato in microwave" differ by one word), so both layers first compare what a task
does: its structure. Two tasks are compatible when they have the same structure, or when
either has none that can be read (then sentence similarity alone decides). Among compatible
tasks the embedding still ranks.

Where a task's structure comes from, first that gives one:

1. the caller's `task_type`, when given;
2. for a finished, resolved task: what its trajectory did (`task_structure`, any action
   language);
3. from the goal text: a domain pack's vocabulary when one is turned on (off by default,
   `domain_packs`), else the space's own model (`task_model.GoalModel`), learned from the goals
   and structures of its resolved tasks, which abstains when unsure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TypeVar

from .domain_packs import load_pack
from .task_model import GoalModel
from .task_structure import trajectory_structure


@dataclass(frozen=True)
class KeyReader:
    """How goal texts are read into structures in one space: its learned model and the
    domain pack turned on, if any. `KeyReader()` reads nothing from goals (keys from the
    caller's type and trajectories only)."""

    model: GoalModel | None = None
    pack: ModuleType | None = None

    @classmethod
    def of(cls, model: GoalModel | None, pack_name: str = "") -> KeyReader:
        return cls(model, load_pack(pack_name))

    def goal(self, text: str) -> str | None:
        if self.pack is not None:
            found: str | None = self.pack.goal_key(text)
            if found is not None:
                return found
        return self.model.predict(text) if self.model is not None else None

    def trajectory(self, actions: Sequence[str]) -> str | None:
        """What a trajectory did: with a pack on, the pack's reading of its world's actions
        (None outside them: the goal then decides), else `trajectory_structure`."""
        if self.pack is not None:
            found: str | None = self.pack.trajectory_key(actions)
            return found
        return trajectory_structure(actions)


NO_MODEL = KeyReader()


def task_key(text: str, reader: KeyReader = NO_MODEL, task_type: str | None = None) -> str | None:
    """The key a task is looked up by before it is done: the caller's type, else what its
    goal is read as (None when it cannot be read)."""
    if task_type:
        return task_type
    return reader.goal(text)


def recorded_key(
    goal: str,
    resolved: bool,
    actions: Sequence[str],
    reader: KeyReader = NO_MODEL,
    task_type: str | None = None,
) -> str | None:
    """The structure a finished task is recorded with: the caller's type; for a resolved
    task, what its trajectory did (a goal's wording can hide it: "Put a potato on the
    counter." for a cleaning); for a failed one, or a trajectory that names no thing, its
    goal's."""
    if task_type:
        return task_type
    done = reader.trajectory(actions) if resolved else None
    return done if done is not None else reader.goal(goal)


def compatible(a: str | None, b: str | None) -> bool:
    """Whether two task keys allow the tasks to be called similar: equal, or either unknown
    (then sentence similarity decides alone)."""
    return a is None or b is None or a == b


def majority(keys: Iterable[str | None]) -> str | None:
    """The key most of the known ones are (ties and none known: None). An insight's source
    structure is that of the tasks it helped."""
    counts = Counter(k for k in keys if k is not None)
    if not counts:
        return None
    ranked = counts.most_common(2)
    if len(ranked) == 2 and ranked[0][1] == ranked[1][1]:
        return None
    return ranked[0][0]


T = TypeVar("T")


def similar_tasks(
    key: str | None, candidates: Sequence[T], key_of: Callable[[T], str | None], k: int
) -> list[T]:
    """The first k candidates (already ordered by embedding similarity) whose task is
    compatible with a task of the given key."""
    return [c for c in candidates if compatible(key, key_of(c))][:k]
