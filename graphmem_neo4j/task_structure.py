"""What a task does, read from its own actions in any action language.

A resolved trajectory shows its task's structure without any word list: the thing its last
action acted on is what the task was about, and the structure is the verbs applied to that
thing, in order of first use, with a mark when two or more distinct instances of it were
handled. "take mug 1 from desk 1 … clean mug 1 with sinkbasin 1 … put mug 1 in/on shelf 1"
is `take clean put`; two cellphones taken and put is `take put x2`; a run that ends with
"use desklamp 1" is `use`; a tool-calling agent's `search(q=…) … buy(item=…)` is read the same
way, with the tool name as the verb.

An action is parsed generically:

- a tool call `name(arg, key=value)` or a JSON object with a "tool"/"name"/"action" field:
  the verb is the tool name, the arguments are the values in order;
- any other text: the verb is its first word, the first argument the words after it up to the
  first preposition (a closed class of the English language, not a world's vocabulary), the
  second argument the words after that. A thing is compared by its head: the last word of its
  name without instance number ("metal pot", "mug 1" → pot, mug).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .experience.normalize import ARTICLES, PREPOSITIONS, collapse, name_class

_CALL = re.compile(r"^\s*([A-Za-z_][\w.\-]*)\s*\((.*)\)\s*$", re.DOTALL)
_WORD = re.compile(r"[a-z][a-z0-9_\-]*")
_VERB_FIELDS = ("tool", "name", "action", "function")
MANY = "x2"
"""The mark of a structure that handled two or more distinct instances of its thing."""


@dataclass(frozen=True)
class ParsedAction:
    verb: str
    args: tuple[str, ...] = ()

    @property
    def thing(self) -> str:
        """The head of the first argument ("" when there is none)."""
        return head(self.args[0]) if self.args else ""


def head(name: str) -> str:
    """The last word of a thing's name without its instance number: 'metal pot' → 'pot'."""
    words = _WORD.findall(name_class(name.lower()))
    return words[-1] if words else ""


def parse_action(raw: str) -> ParsedAction:
    """Verb and positional arguments of one action text (see the module docstring)."""
    text = collapse(raw)
    if not text:
        return ParsedAction("")
    parsed = _parse_json(text) or _parse_call(text)
    if parsed is not None:
        return parsed
    words = text.lower().rstrip(".!?").split()
    verb, rest = words[0], words[1:]
    while rest and rest[0] in PREPOSITIONS:  # "focus on x", "look at x"
        rest = rest[1:]
    for i, word in enumerate(rest):
        if i > 0 and word in PREPOSITIONS:
            return ParsedAction(verb, (_strip(rest[:i]), _strip(rest[i + 1 :])))
    return ParsedAction(verb, (_strip(rest),) if rest else ())


def _strip(words: Sequence[str]) -> str:
    kept = list(words)
    while len(kept) > 1 and kept[0] in ARTICLES:
        kept = kept[1:]
    return " ".join(kept)


def _parse_call(text: str) -> ParsedAction | None:
    match = _CALL.match(text)
    if match is None:
        return None
    args = []
    for part in match.group(2).split(","):
        value = part.split("=", 1)[-1].strip().strip("'\"")
        if value:
            args.append(value)
    return ParsedAction(match.group(1).lower(), tuple(args))


def _parse_json(text: str) -> ParsedAction | None:
    if not text.startswith("{"):
        return None
    try:
        body = json.loads(text)
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    verb = next((body[f] for f in _VERB_FIELDS if isinstance(body.get(f), str)), None)
    if verb is None:
        return None
    values = body.get("arguments", body.get("args", body.get("parameters", {})))
    if isinstance(values, str):
        try:
            values = json.loads(values)
        except ValueError:
            values = [values]
    items = values.values() if isinstance(values, dict) else values
    args = tuple(str(v) for v in (items if isinstance(items, Iterable) else ()) if v != "")
    return ParsedAction(verb.lower(), args)


def trajectory_structure(actions: Iterable[str]) -> str | None:
    """The structure a trajectory carried out (module docstring); None when no action names a
    thing."""
    parsed = [p for p in (parse_action(a) for a in actions) if p.verb]
    target = next((p.thing for p in reversed(parsed) if p.thing), "")
    if not target:
        return None
    verbs: list[str] = []
    instances: set[str] = set()
    for action in parsed:
        if action.thing == target:
            if action.verb not in verbs:
                verbs.append(action.verb)
            instances.add(action.args[0])
    many = sum(1 for name in instances if head(name) == target) >= 2 and _numbered(instances)
    return " ".join(verbs) + (f" {MANY}" if many else "")


def _numbered(instances: set[str]) -> bool:
    """Distinct instances of one kind show as one name with distinct numbers ("mug 1", "mug
    2"); differently named things of one head ("red wire", "blue wire") are two kinds."""
    return len({name_class(n) for n in instances}) < len(instances)
