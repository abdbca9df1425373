"""Normalisation of actions, observations and task texts (§4.1.2), and the abstractions that
make graphs of different tasks comparable (§4.2.2).

Everything here is a pure function of text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ..fulltext import STOPWORDS
from .models import ActionKey, Step

_SPACES = re.compile(r"\s+")
_BANNER = re.compile(r"-=.*?=-")
_TASK_SENTENCE = re.compile(r"your task is to\s*:.*$", re.IGNORECASE | re.DOTALL)
_TASK_PREFIX = re.compile(r"^\s*your task is to\s*:\s*", re.IGNORECASE)
_INSTANCE = re.compile(r"\s+\d+$")
_WORD = re.compile(r"[a-z0-9]+")

ARTICLES = frozenset({"a", "an", "the", "some"})
# Words that split "verb object PREP receptacle". Checked in this order of preference is not
# needed: the first one in the text wins, which is what "take X from Y" and "put X in/on Y" need.
PREPOSITIONS = frozenset(
    {"in/on", "from", "into", "onto", "with", "using", "under", "in", "on", "to", "at"}
)
UNINFORMATIVE = frozenset(
    {
        "",
        "nothing happens",
        "nothing happened",
        "invalid action",
        "i don't understand that",
        "you can't do that",
        "that's not a verb i recognise",
    }
)
"""Normalised observations that say the environment did not change (§4.1.2)."""

PLACEHOLDER = "something"
"""What a named thing becomes in a task skeleton: a neutral word for the embedder."""


def collapse(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def normalize_task(text: str) -> str:
    """The task text a Task node is keyed on: no 'Your task is to:' prefix, whitespace
    collapsed, lower case, no trailing full stop."""
    text = collapse(_TASK_PREFIX.sub("", text)).lower()
    return text.rstrip(" .")


def normalize_action(raw: str) -> ActionKey:
    """(type, object, receptacle) of an action text: "take apple 1 from table 2" →
    (take, apple 1, table 2); "go to shelf 1" → (go, "", shelf 1); "open drawer 3" →
    (open, drawer 3, ""). Instance numbers are kept: two drawers are two decisions."""
    words = collapse(raw).lower().rstrip(".!?").split()
    if not words:
        return ActionKey("")
    if len(words) >= 2 and words[0] == "go" and words[1] == "to":
        return ActionKey("go", "", _strip_articles(words[2:]))
    verb, rest = words[0], words[1:]
    for i, word in enumerate(rest):
        if i > 0 and word in PREPOSITIONS:
            return ActionKey(verb, _strip_articles(rest[:i]), _strip_articles(rest[i + 1 :]))
    return ActionKey(verb, _strip_articles(rest))


def _strip_articles(words: Sequence[str]) -> str:
    start = 0
    while start < len(words) - 1 and words[start] in ARTICLES:
        start += 1
    return " ".join(words[start:])


def normalize_observation(text: str) -> str:
    """s_i of §4.1.2: the observation without banners or the task sentence, whitespace
    collapsed, lower case. Numbers stay: within one environment they name distinct things."""
    text = _TASK_SENTENCE.sub("", _BANNER.sub(" ", text))
    return collapse(text).lower()


def is_uninformative(observation: str) -> bool:
    """True when the observation says nothing changed ("Nothing happens.")."""
    return normalize_observation(observation).rstrip(".!") in UNINFORMATIVE


def name_class(name: str) -> str:
    """'alarmclock 2' → 'alarmclock': the kind of thing, without its instance number."""
    return _INSTANCE.sub("", name.strip())


_NUMBERED = re.compile(r"\b([a-z]+) \d+\b")


def names_of(steps: Iterable[Step], initial_observation: str = "") -> set[str]:
    """The kinds of things a trajectory deals with: the objects and receptacles of its
    actions, and the numbered things its observations mention ("a egg 1")."""
    found: set[str] = set()
    texts = [initial_observation]
    for step in steps:
        key = normalize_action(step.action)
        for part in (key.object, key.receptacle):
            cls = name_class(part)
            if cls and not cls.isdigit():
                found.add(cls)
        texts.append(step.observation)
    for text in texts:
        found.update(m.group(1) for m in _NUMBERED.finditer(text.lower()))
    return found


def _name_pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    ordered = sorted({n for n in names if n}, key=lambda n: (-len(n), n))
    if not ordered:
        return None
    alternatives = "|".join(re.escape(n) for n in ordered)
    return re.compile(rf"(?<![a-z0-9])(?:{alternatives})(?:\s+\d+)?(?![a-z0-9])")


def task_roles(task: str, names: Iterable[str]) -> dict[str, str]:
    """The things a task names, in order of mention: {'mug': '<1>', 'coffeemachine': '<2>'}."""
    pattern = _name_pattern(names)
    if pattern is None:
        return {}
    roles: dict[str, str] = {}
    for match in pattern.finditer(task.lower()):
        cls = name_class(match.group(0))
        if cls not in roles:
            roles[cls] = f"<{len(roles) + 1}>"
    return roles


def skeleton(task: str, names: Iterable[str]) -> str:
    """The task with every named thing replaced by a neutral word and stop words dropped:
    "put a hot mug in coffeemachine" → "put hot something something". What must be done, not
    with what; retrieval embeds both (see `retrieval.task_vector`)."""
    text = task.lower()
    pattern = _name_pattern(names)
    if pattern is not None:
        text = pattern.sub(f" {PLACEHOLDER} ", text)
    words = [w for w in _WORD.findall(text) if w not in STOPWORDS and w not in ARTICLES]
    words = [w for w in words if w not in ("it", "them")]
    return " ".join(words)


def abstract_text(text: str, roles: dict[str, str], names: Iterable[str]) -> str:
    """Replace named things: a task's own things by their role (<1>, <2>), any other by its
    kind without instance number. Used to compare experts of different tasks (§4.2.2)."""
    pattern = _name_pattern(set(names) | set(roles))
    if pattern is None:
        return text
    return pattern.sub(lambda m: roles.get(name_class(m.group(0)), name_class(m.group(0))), text)


_SEE = re.compile(r"you see ([^.]*)")


def abstract_observation(state: str, roles: dict[str, str], names: Iterable[str]) -> str:
    """A normalised observation made comparable across environments: things named by role or
    kind, and each "you see …" list reduced to the roles in it (or 'things' / 'nothing')."""
    text = abstract_text(state, roles, names)

    def seen(match: re.Match[str]) -> str:
        items = match.group(1)
        if items.strip() in ("", "nothing"):
            return "you see nothing"
        present = sorted(set(re.findall(r"<\d+>", items)))
        return "you see " + (", ".join(present) if present else "things")

    return _SEE.sub(seen, text)
