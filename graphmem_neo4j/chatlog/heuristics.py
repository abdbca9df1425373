"""The English heuristics of a chat log, used when no LLM reads it: first person rewritten
as the speaker so the facts layer's statement patterns can read what people say about
themselves, and a task's steps from the dialogue when the agent logged none."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from ..conversation.models import TurnInput
from ..facts.models import FactInput
from ..facts.patterns import RELATION_CATEGORIES, VERBS, parse_statements

NO_FACTS_FROM = frozenset({"assistant", "system", "tool", "agent", "bot"})
"""Speakers whose turns are not read for facts (what an assistant says is not evidence)."""
_TASK_ID = re.compile(r"[^A-Za-z0-9_.:/#@+=\-]+")


_IRREGULAR = {"have": "has", "do": "does", "go": "goes"}
_I_VERB = re.compile(r"\bI\s+([a-z]+)\b")
_I_AM = re.compile(r"\bI(?:'m|’m|\s+am)\b")
_MY = re.compile(r"\b[Mm]y\s+(\w+)")
# Clause boundaries the statement patterns should see as sentence ends: "I moved to Lisbon
# and I work at Acme", "Big news: I moved", "I drink tea, so ...".
_CLAUSE = re.compile(r",?\s+and\s+(?=I\b)|:\s+|,\s+(?:so|but|because|which|although)\s+")
_NOW = re.compile(r"\s+(?:now|these days|nowadays)(?=\s*(?:[.!?;]|$))")
_PATTERN_VERBS = frozenset(phrase.split()[0] for phrase in VERBS)
"""First words of the verb phrases the statement patterns read ("lives", "moved", ...)."""


def _third_person_verb(verb: str) -> str:
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(verb) > 1 and verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _speaker_verb(speaker: str, verb: str) -> str:
    """ "I <verb>" as the speaker, when it forms a verb the patterns read ("I live" → "Maya
    lives", "I moved" → "Maya moved"); any other first-person clause is left alone, so a
    pattern never reads a mangled verb ("I saw" must not become "Maya saws")."""
    if verb in _PATTERN_VERBS:
        return f"{speaker} {verb}"
    third = _third_person_verb(verb)
    if third in _PATTERN_VERBS:
        return f"{speaker} {third}"
    return f"I {verb}"


def third_person(text: str, speaker: str) -> str:
    """First person → the speaker where the statement patterns can then read it:
    "I moved to Lisbon" → "Maya moved to Lisbon", "I work at Acme" → "Maya works at Acme",
    "I'm a nurse" → "Maya is a nurse", "my employer is Acme" → "Maya's employer is Acme"
    (only the relation words the patterns know: "my kids are excited" stays as it is)."""
    text = _I_AM.sub(f"{speaker} is", text)
    text = _I_VERB.sub(lambda m: _speaker_verb(speaker, m.group(1)), text)
    return _MY.sub(
        lambda m: f"{speaker}'s {m.group(1)}" if m.group(1) in RELATION_CATEGORIES else m.group(0),
        text,
    )


def statements_of(text: str, speaker: str) -> str:
    """A turn as the statement patterns read it: clauses split into sentences, first person
    as the speaker, a trailing "now" dropped."""
    return third_person(_NOW.sub("", _CLAUSE.sub(". ", text)), speaker)


def _iso_day(ms: int | None) -> str | None:
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=UTC).date().isoformat()


def offline_facts(turns: Sequence[TurnInput]) -> list[FactInput]:
    """What the participants say about themselves, read by the statement patterns: a fact
    whose subject is a speaker and whose verb or relation word the patterns know (their
    catch-all "X <verb>s Y" reading, category "general", is too loose for chat). Each names
    its turn as the source and holds from the statement's own time, else the turn's day."""
    found: dict[tuple[str, ...], FactInput] = {}
    speakers = {t.speaker.strip().casefold() for t in turns}
    for turn in turns:
        if turn.speaker.strip().casefold() in NO_FACTS_FROM:
            continue
        for st in parse_statements(statements_of(turn.text, turn.speaker)):
            if st.category == "general" or st.subject.strip().casefold() not in speakers:
                continue
            data: dict[str, Any] = {
                "subject": st.subject,
                "relation": st.relation,
                "object": st.object,
                "category": st.category,
                "source": f"turn {turn.turn_id}",
            }
            if st.context:
                data["context"] = st.context
            valid_from = st.valid_from or _iso_day(turn.timestamp)
            if valid_from:
                data["valid_from"] = valid_from
            try:
                fact = FactInput.model_validate(data)
            except ValueError:
                continue  # a phrase the patterns took for a name but the checks refuse
            found.setdefault(tuple(str(v) for v in data.values()), fact)
    return list(found.values())


def transcript(turns: Sequence[TurnInput]) -> str:
    return "\n".join(f"{t.speaker}: {t.text}" for t in turns)


def task_id_for(session: str) -> str:
    """A task id from a session name (task ids allow a plain alphabet only)."""
    cleaned = _TASK_ID.sub("-", session).strip("-") or "session"
    if not cleaned[0].isalnum():
        cleaned = "s" + cleaned
    return f"chat:{cleaned}"[:256]


def dialogue_steps(turns: Sequence[TurnInput]) -> list[dict[str, str]]:
    """Without agent steps, a task's steps are the replies: each turn of someone other than
    the first speaker, with the next turn as what it was met with."""
    asker = turns[0].speaker
    steps = []
    for i, turn in enumerate(turns):
        if i == 0 or turn.speaker == asker:
            continue
        after = turns[i + 1].text if i + 1 < len(turns) else ""
        steps.append({"role": turn.speaker, "action": turn.text, "observation": after})
    return steps
