"""ALFWorld's domain pack: its goal vocabulary and action language (off by default).

Turned on with `GRAPHMEM_DOMAIN_PACK=alfworld`, it reads a goal's procedure from ALFWorld's
words before the learned model is asked. Procedures, checked in this order (the first that a
goal's words show wins):

- heat, cool, clean: the modifier or verb in any of its forms ("put a hot mug", "heat some
  egg", "a heated apple", "microwaved", "chilled", "washed", "rinsed"); a receptacle that does
  the job ("microwave", "fridge", "sink") is not a signal, since plain placements use them too;
- light: looking at something by a lamp ("look at", "examine", "turn on the lamp", "light");
- two: a placement of two things ("two", "both", "pair of", "2", "put them");
- place: any other placement verb ("put", "place", "move", "set", "bring", ...).

A goal that uses none of these words has no procedure (None).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..experience.normalize import name_class, normalize_action

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


def goal_key(text: str) -> str | None:
    """The pack's reading of a goal: its procedure."""
    return procedure(text)


def trajectory_key(actions: Iterable[str]) -> str | None:
    """The pack's reading of a trajectory: its procedure."""
    return trajectory_procedure(actions)
