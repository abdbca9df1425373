"""What makes two tasks similar: one notion, shared by the insights and experience layers.

A sentence embedding finds household goals all alike ("put a cool tomato in microwave" and
"put a tomato in microwave" differ by one word), so both layers first compare what the task
asks to *do*: its procedure, read from the goal's verbs and modifiers. Two tasks are
compatible when they have the same procedure, or when either has none that can be read (then
sentence similarity alone decides, the fallback for tasks outside this vocabulary). Among
compatible tasks the embedding still ranks, so the objects and receptacles a goal names order
the neighbours of one procedure.

Procedures, checked in this order (the first that a goal's words show wins):

- heat, cool, clean: the modifier or verb in any of its forms ("put a hot mug", "heat some
  egg", "a heated apple", "microwaved", "chilled", "washed", "rinsed"); a receptacle that does
  the job ("microwave", "fridge", "sink") is not a signal, since plain placements use them too;
- light: looking at something by a lamp ("look at", "examine", "turn on the lamp", "light");
- two: a placement of two things ("two", "both", "pair of", "2", "put them");
- place: any other placement verb ("put", "place", "move", "set", "bring", ...).

The word lists are ALFWorld's vocabulary and that of its human goal descriptions; a goal that
uses none of them has no procedure (`task_key` is None).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from .experience.normalize import name_class, normalize_action

_WORD = re.compile(r"[a-z0-9]+")

PROCEDURE_WORDS: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "heat",
        frozenset(
            "heat heated heating heats hot warm warmed warming microwaved cook cooked "
            "cooking".split()
        ),
    ),
    (
        "cool",
        frozenset(
            "cool cooled cooling cools cold chill chilled chilling refrigerated frozen "
            "freeze".split()
        ),
    ),
    (
        "clean",
        frozenset(
            "clean cleaned cleaning cleans wash washed washing rinse rinsed rinsing scrub "
            "scrubbed".split()
        ),
    ),
    (
        "light",
        frozenset(
            "look looking examine examining inspect inspecting view lamp desklamp floorlamp "
            "light".split()
        ),
    ),
)
TWO_WORDS = frozenset({"two", "both", "2", "pair", "couple", "them"})
PLACE_WORDS = frozenset(
    "put puts putting place places placing move moving set bring carry transfer drop insert "
    "store throw return leave find get grab deposit relocate".split()
)
PROCEDURES = ("heat", "cool", "clean", "light", "two", "place")


def procedure(text: str) -> str | None:
    """The procedure a goal asks for (see the module docstring), or None when none shows."""
    words = _WORD.findall(text.lower())
    found: dict[str, int] = {}
    for name, vocabulary in PROCEDURE_WORDS:
        at = next((i for i, w in enumerate(words) if w in vocabulary), None)
        if at is not None:
            found[name] = at
    if found:
        return min(found, key=lambda name: found[name])
    if any(w in TWO_WORDS for w in words):
        return "two"
    if any(w in PLACE_WORDS for w in words):
        return "place"
    return None


def task_key(text: str) -> str | None:
    """The key tasks are compared on: their procedure, None when it cannot be read."""
    return procedure(text)


_SIGNATURE_VERBS = {"heat": "heat", "cool": "cool", "clean": "clean"}


def trajectory_procedure(actions: Iterable[str]) -> str | None:
    """The procedure a trajectory carried out, read from ALFWorld's action language: the first
    heat / cool / clean action, a lamp switched on ("use desklamp 1"), two distinct things of
    one kind put down (two), one put down (place); None for any other action language."""
    put: dict[str, set[str]] = {}
    for action in actions:
        key = normalize_action(action)
        if key.type in _SIGNATURE_VERBS:
            return _SIGNATURE_VERBS[key.type]
        if key.type == "use" and "lamp" in key.object:
            return "light"
        if key.type == "put" and key.object:
            put.setdefault(name_class(key.object), set()).add(key.object)
    if any(len(instances) >= 2 for instances in put.values()):
        return "two"
    return "place" if put else None


def recorded_key(goal: str, resolved: bool, actions: Sequence[str]) -> str | None:
    """The structure a finished task is recorded with: for a resolved task, what its
    trajectory did (a goal's wording can hide it: "Put a potato on the counter." for a
    cleaning); for a failed one, or a trajectory in another action language, its goal's."""
    done = trajectory_procedure(actions) if resolved else None
    return done if done is not None else task_key(goal)


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
