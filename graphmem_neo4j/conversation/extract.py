"""Turn → typed entities and attributed relations.

Two extractors behind one protocol: `OfflineExtractor` here (deterministic rules, no model:
names, quoted titles, noun phrases after determiners, dates, subject-verb-object and possessive
patterns) and `LLMExtractor` in extract_llm.py (any OpenAI-compatible endpoint, JSON validated
with pydantic, falling back to the offline rules when the LLM keeps failing and settings allow
it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, Protocol

from .models import ExtractedEntity, ExtractedRelation, TurnExtraction, TurnInput
from .text import (
    CONVERSATION_STOPWORDS,
    WEEKDAYS,
    name_key,
    relative_dates,
    time_ranges,
    truncate,
)

if TYPE_CHECKING:
    pass


class Extractor(Protocol):
    name: str

    def extract(self, turns: Sequence[TurnInput], speakers: frozenset[str]) -> list[TurnExtraction]:
        """One extraction per turn, in order. `speakers` are the known people of the space."""
        ...


# --- offline rules -------------------------------------------------------------------------

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’\-]*|[\"“”]|[.,!?;:()&/+]")
_QUOTED = re.compile(r"[\"“]([^\"“”]{2,80})[\"”]")

_DETERMINERS = frozenset(
    "a an the my our your his her their this that these those some another every".split()
)
_SUBJECTS = frozenset({"i", "we"})
_ADVERBS = frozenset(
    "just really finally recently also actually already even still totally definitely "
    "never always usually often sometimes".split()
)
_IRREGULAR_PAST = frozenset(
    "went got made took saw bought met read ran found gave won began felt kept left lost "
    "built wrote drew sang taught caught brought thought heard held sold told chose".split()
)
_PRESENT_VERBS = frozenset(
    "love like enjoy have want need play make visit adopt paint read watch started joined "
    "volunteer teach study learn collect practice own plan hope work".split()
)
# Activities named by a gerund after a verb of doing or liking ("went camping", "I've been
# running", "love painting"): the instances a question about "activities" or "hobbies" asks for.
_ACTIVITY_CUES = frozenset(
    "do doing go goes going went gone love loves loved enjoy enjoys enjoyed start starts started "
    "try tries tried like likes liked been into began begin took keep kept practice "
    "practicing".split()
)
_NOT_ACTIVITIES = frozenset(
    "something nothing anything everything during morning evening amazing interesting "
    "exciting inspiring relaxing challenging rewarding loving caring boring fascinating "
    "having getting being doing going feeling looking thinking trying saying making taking "
    "coming working struggling wondering planning hoping keeping seeing telling talking "
    "dealing living learning growing trying missing finding giving putting".split()
)
_PREPOSITIONS = frozenset("to at in on for with from into about of by".split())
_GREETINGS = frozenset(
    "hey hi hello thanks thank wow yeah yes no oh sure sorry congrats congratulations great "
    "awesome cool nice good well ok okay so and but or haha lol omg aww ah hmm".split()
)
_TIME_WORDS = (
    frozenset(
        "yesterday today tomorrow tonight week weekend month year morning evening night ago "
        "last next recently soon lately now".split()
    )
    | WEEKDAYS
)
_NP_STOP = CONVERSATION_STOPWORDS | _TIME_WORDS | _PREPOSITIONS


def _is_cap(token: str) -> bool:
    low = token.lower()
    return (
        token[:1].isupper()
        and low != "i"
        and not low.startswith("i'")
        and any(c.isalpha() for c in token)
    )


def _clean(token: str) -> str:
    return token.replace("’", "'").strip("'-")


def _verb_form(token: str) -> bool:
    low = token.lower()
    return (
        low in _IRREGULAR_PAST
        or low in _PRESENT_VERBS
        or (low.endswith("ed") and len(low) > 4 and low not in _NP_STOP)
    )


class OfflineExtractor:
    """Deterministic rules; the same text always yields the same graph."""

    name = "offline"

    def __init__(self, *, max_entities: int = 12, activities: bool = False) -> None:
        self.max_entities = max_entities
        self.activities = activities

    def extract(self, turns: Sequence[TurnInput], speakers: frozenset[str]) -> list[TurnExtraction]:
        return [self.extract_one(turn, speakers) for turn in turns]

    def extract_one(self, turn: TurnInput, speakers: frozenset[str]) -> TurnExtraction:
        entities: dict[str, ExtractedEntity] = {}
        relations: list[ExtractedRelation] = []
        known = {s.lower(): s for s in speakers}

        def add(name: str, kind: str) -> str | None:
            key = name_key(name)
            if not key or key in CONVERSATION_STOPWORDS or len(key) < 2:
                return None
            if key not in entities and len(entities) < self.max_entities:
                entities[key] = ExtractedEntity(name=name.strip(), type=kind)
            return entities[key].name if key in entities else None

        speaker = turn.speaker.strip()
        for sentence in _SENTENCE.split(turn.text):
            if not sentence.strip():
                continue
            fact = truncate(f"{speaker}: {sentence.strip()}", 240)
            dates = [add(r.label, "date") for r in time_ranges(sentence)]
            dates += [add(label, "date") for _, label in relative_dates(sentence, turn.timestamp)]
            for title in _QUOTED.findall(sentence):
                add(title, "title")
            tokens = [_clean(t) for t in _TOKEN.findall(sentence)]
            tokens = [t for t in tokens if t]
            names = self._names(tokens, known)
            for name in names:
                add(name, "person" if name.lower() in known else "name")
            phrases = self._noun_phrases(tokens)
            for phrase in phrases:
                add(phrase, "thing")
            if self.activities:
                for activity in self._activities(tokens):
                    add(activity, "activity")
            for subject, verb, obj in self._svo(tokens, speaker, known):
                source = add(subject, "person" if subject.lower() in known else "name")
                target = add(obj, "thing")
                if source and target and name_key(source) != name_key(target):
                    relations.append(ExtractedRelation(source, target, verb, fact))
            for owner, owned in self._possessions(tokens, speaker):
                source = add(owner, "person" if owner.lower() in known else "name")
                target = add(owned, "thing")
                if source and target and name_key(source) != name_key(target):
                    relations.append(ExtractedRelation(source, target, "has", fact))
            # Time edges: what a sentence is about, anchored to the dates it names.
            objects = [r.target for r in relations if r.fact == fact]
            for date in dates:
                for obj in objects[:2]:
                    if date and obj:
                        relations.append(ExtractedRelation(obj, date, "when", fact))
        unique: dict[tuple[str, str, str], ExtractedRelation] = {}
        for rel in relations:
            unique.setdefault((name_key(rel.source), rel.type, name_key(rel.target)), rel)
        return TurnExtraction(tuple(entities.values()), tuple(unique.values()))

    @staticmethod
    def _names(tokens: list[str], known: dict[str, str]) -> list[str]:
        """Runs of capitalised words; a lone sentence-initial word only if it is a known
        person (otherwise "Painting is fun" would make "Painting" a name)."""
        out: list[str] = []
        run: list[str] = []
        start_index = 0

        def flush() -> None:
            if run:
                lone_initial = len(run) == 1 and start_index == 0
                first = run[0].lower()
                if first in _GREETINGS or first in CONVERSATION_STOPWORDS:
                    run.pop(0)
                if run and (not lone_initial or run[0].lower() in known):
                    out.append(" ".join(run))
            run.clear()

        for i, token in enumerate(tokens):
            if _is_cap(token) and token.lower() not in _TIME_WORDS:
                if not run:
                    start_index = i
                run.append(token)
            else:
                flush()
        flush()
        return [n for n in out if n.lower() not in _GREETINGS]

    @staticmethod
    def _noun_phrases(tokens: list[str]) -> list[str]:
        """Up to three content words after a determiner or possessive: "my pottery class"."""
        out: list[str] = []
        for i, token in enumerate(tokens):
            if token.lower() not in _DETERMINERS:
                continue
            phrase: list[str] = []
            for nxt in tokens[i + 1 : i + 4]:
                low = nxt.lower()
                if not nxt[:1].isalnum() or low in _NP_STOP or low in _DETERMINERS:
                    break
                if phrase and _verb_form(nxt):
                    break
                phrase.append(low)
            while phrase and (phrase[-1].endswith("ly") or phrase[-1].endswith("ing")):
                if len(phrase) == 1:
                    break
                phrase.pop()
            if phrase:
                out.append(" ".join(phrase))
        return out

    @staticmethod
    def _activities(tokens: list[str]) -> list[str]:
        """ "we went camping", "I've been running", "I love painting" → camping, running,
        painting: a gerund right after a verb of doing or liking."""
        out: list[str] = []
        for cue, token in pairwise(tokens):
            low = token.lower()
            if (
                cue.lower() in _ACTIVITY_CUES
                and low.endswith("ing")
                and len(low) >= 6
                and low.isalpha()
                and low not in _NOT_ACTIVITIES
                and low not in _NP_STOP
            ):
                out.append(low)
        return out

    @staticmethod
    def _object_after(tokens: list[str], j: int) -> tuple[str | None, str]:
        """The noun phrase starting at tokens[j] (after optional prepositions/determiners) and
        the preposition that introduced it."""
        prep = ""
        while j < len(tokens) and tokens[j].lower() in _PREPOSITIONS and not prep:
            prep = tokens[j].lower()
            j += 1
        while j < len(tokens) and tokens[j].lower() in _DETERMINERS:
            j += 1
        words: list[str] = []
        while j < len(tokens) and len(words) < 3:
            low = tokens[j].lower()
            if not tokens[j][:1].isalnum() or low in _NP_STOP or low in _DETERMINERS:
                break
            if words and _verb_form(tokens[j]):
                break
            words.append(tokens[j] if _is_cap(tokens[j]) else low)
            j += 1
        return (" ".join(words) or None), prep

    def _svo(
        self, tokens: list[str], speaker: str, known: dict[str, str]
    ) -> list[tuple[str, str, str]]:
        """ "I adopted a puppy" → (speaker, adopted, puppy); "Maya went to Lisbon" →
        (Maya, went_to, Lisbon)."""
        out: list[tuple[str, str, str]] = []
        for i, token in enumerate(tokens):
            low = token.lower()
            if low in _SUBJECTS:
                subject = speaker
            elif low in known:
                subject = known[low]
            else:
                continue
            j = i + 1
            while j < len(tokens) and tokens[j].lower() in _ADVERBS:
                j += 1
            if j >= len(tokens) or not _verb_form(tokens[j]):
                continue
            verb = tokens[j].lower()
            obj, prep = self._object_after(tokens, j + 1)
            if obj:
                out.append((subject, f"{verb}_{prep}" if prep else verb, obj))
        return out

    @staticmethod
    def _possessions(tokens: list[str], speaker: str) -> list[tuple[str, str]]:
        """ "my kids" → (speaker, kids); "Melanie's kids" → (Melanie, kids)."""
        out: list[tuple[str, str]] = []
        for i, token in enumerate(tokens[:-1]):
            low = token.lower()
            if low in ("my", "our"):
                owner = speaker
            elif low.endswith("'s") and _is_cap(token):
                owner = token[:-2]
            else:
                continue
            words: list[str] = []
            for nxt in tokens[i + 1 : i + 3]:
                n = nxt.lower()
                if not nxt[:1].isalnum() or n in _NP_STOP or n in _DETERMINERS:
                    break
                if words and _verb_form(nxt):
                    break
                words.append(n)
            if words:
                out.append((owner, " ".join(words)))
        return out
