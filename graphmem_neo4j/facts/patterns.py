"""The offline path: simple English statements to facts, and questions to the phrases and words
localisation matches on. Deterministic, no model; anything it cannot read is left to the LLM
path or to structured JSONL.

Statements it reads (one per sentence, an optional time and condition anywhere at the end):

    Alice lives in Paris.                      Bob's employer is Acme since 2021.
    Carol moved to Berlin in March 2022.       The capital of France is Paris.
    Dave works at Initech as of 2020-05-01.    Alice drinks tea in the evening.
    Erin is a nurse.                           Frank likes jazz on weekends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .keys import STOPWORDS, context_key, name_key, stem, strip_article, words

_MONTHS = (
    "january february march april may june july august september october november december"
).split()
_MONTH = r"(?:" + "|".join(m.capitalize() + "|" + m for m in _MONTHS) + r")"
_DATE = (
    r"(?:\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?"
    r"|\d{4}-\d{2}"
    rf"|{_MONTH}\s+\d{{1,2}},?\s+\d{{4}}"
    rf"|\d{{1,2}}\s+{_MONTH}\s+\d{{4}}"
    rf"|{_MONTH}\s+\d{{4}}"
    r"|\d{4})"
)
_TIME_TAIL = re.compile(
    rf",?\s+(?:since|as of|from|starting(?: in| from| on)?|beginning(?: in)?|in|on)\s+"
    rf"(?P<time>{_DATE})\s*$"
)
_TIME_HEAD = re.compile(
    rf"^(?:since|as of|from|starting(?: in| from| on)?|in|on)\s+(?P<time>{_DATE}),?\s+"
)
_CONDITION = (
    r"(?:in the (?:morning|afternoon|evening|night|summer|winter|spring|autumn|fall|week|"
    r"weekend|office)s?"
    r"|on (?:weekends|weekdays|workdays|holidays|vacation|mondays|tuesdays|wednesdays|"
    r"thursdays|fridays|saturdays|sundays|business trips)"
    r"|at (?:work|home|school|night|university|the office|the gym|weekends)"
    r"|during (?:the )?[\w ]+?"
    r"|when [\w ',]+?"
    r"|while [\w ',]+?)"
)
_CONDITION_TAIL = re.compile(rf",?\s+(?P<ctx>{_CONDITION})\s*$", re.IGNORECASE)
_CONDITION_HEAD = re.compile(rf"^(?P<ctx>{_CONDITION}),\s+", re.IGNORECASE)

# verb phrase → (relation, category). Longest phrases first so "is married to" wins over "is".
VERBS: dict[str, tuple[str, str]] = {
    "lives in": ("lives_in", "location"),
    "lived in": ("lives_in", "location"),
    "resides in": ("lives_in", "location"),
    "moved to": ("lives_in", "location"),
    "moved back to": ("lives_in", "location"),
    "relocated to": ("lives_in", "location"),
    "is based in": ("lives_in", "location"),
    "was born in": ("born_in", "location"),
    "works at": ("works_at", "organisation"),
    "works for": ("works_at", "organisation"),
    "worked at": ("works_at", "organisation"),
    "is employed by": ("works_at", "organisation"),
    "joined": ("works_at", "organisation"),
    "studies at": ("studies_at", "education"),
    "studied at": ("studies_at", "education"),
    "is married to": ("spouse", "person"),
    "married": ("spouse", "person"),
    "reports to": ("manager", "person"),
    "owns": ("owns", "possession"),
    "drives": ("drives", "possession"),
    "likes": ("likes", "preference"),
    "loves": ("likes", "preference"),
    "enjoys": ("likes", "preference"),
    "prefers": ("prefers", "preference"),
    "drinks": ("drinks", "preference"),
    "eats": ("eats", "preference"),
    "speaks": ("speaks", "language"),
    "plays": ("plays", "activity"),
    "uses": ("uses", "tool"),
    "is a": ("is_a", "role"),
    "is an": ("is_a", "role"),
}
_VERB = re.compile(
    r"^(?P<subj>.+?)\s+(?P<verb>"
    + "|".join(re.escape(v) for v in sorted(VERBS, key=len, reverse=True))
    + r")\s+(?P<obj>.+)$",
    re.IGNORECASE,
)
_POSSESSIVE = re.compile(
    r"^(?P<subj>.+?)(?:'s|’s|')\s+(?P<rel>[\w][\w \-]*?)\s+(?:is|are|was|were)\s+(?P<obj>.+)$"
)
_OF_FORM = re.compile(
    r"^the\s+(?P<rel>[\w][\w \-]*?)\s+of\s+(?P<subj>.+?)\s+(?:is|are|was|were)\s+(?P<obj>.+)$",
    re.IGNORECASE,
)
_GENERIC = re.compile(
    r"^(?P<subj>[A-Z][\w'’.\-]*(?:\s+[A-Z][\w'’.\-]*)*)\s+(?P<verb>[a-z]+s)\s+(?P<obj>.+)$"
)
# relation words → category, for possessive statements ("Bob's employer is Acme").
RELATION_CATEGORIES: dict[str, str] = {
    "employer": "organisation",
    "company": "organisation",
    "school": "education",
    "university": "education",
    "city": "location",
    "home": "location",
    "hometown": "location",
    "address": "location",
    "country": "location",
    "capital": "location",
    "manager": "person",
    "boss": "person",
    "spouse": "person",
    "wife": "person",
    "husband": "person",
    "partner": "person",
    "friend": "person",
    "job": "role",
    "role": "role",
    "title": "role",
    "position": "role",
    "email": "contact",
    "phone": "contact",
    "favourite": "preference",
    "favorite": "preference",
    "language": "language",
    "pet": "possession",
    "car": "possession",
}
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_PAST_MOVE = ("moved to", "moved back to", "relocated to", "joined", "married")


@dataclass(frozen=True)
class Statement:
    subject: str
    relation: str
    object: str
    category: str
    context: str | None
    valid_from: str | None


def _iso(time_text: str) -> str:
    """A matched date phrase as ISO-8601 ("March 2022" → "2022-03")."""
    text = time_text.strip()
    if re.fullmatch(r"\d{4}(?:-\d{2}(?:-\d{2}.*)?)?", text):
        return text.replace(" ", "T")
    parts = re.findall(r"\w+", text)
    month = next((i + 1 for i, m in enumerate(_MONTHS) for p in parts if p.lower() == m), None)
    year: str = next(p for p in parts if re.fullmatch(r"\d{4}", p))
    day = next((p for p in parts if re.fullmatch(r"\d{1,2}", p)), None)
    if month is None:
        return year
    if day is None:
        return f"{year}-{month:02d}"
    return f"{year}-{month:02d}-{int(day):02d}"


def _category_for(relation: str) -> str:
    for word in words(relation):
        if word in RELATION_CATEGORIES:
            return RELATION_CATEGORIES[word]
    return "general"


def _clean_object(obj: str) -> str:
    return obj.strip().strip("\"'“”").strip()


def parse_statement(sentence: str) -> Statement | None:
    """One simple statement, or None when it does not fit a known shape."""
    text = sentence.strip().rstrip(".!;").strip()
    if not text or text.endswith("?"):
        return None
    valid_from = context = None
    for _ in range(2):  # time and condition, in either order, at either end
        if m := _TIME_TAIL.search(text):
            valid_from, text = _iso(m["time"]), text[: m.start()].strip()
        elif m := _TIME_HEAD.match(text):
            valid_from, text = _iso(m["time"]), text[m.end() :].strip()
        if m := _CONDITION_TAIL.search(text):
            context, text = m["ctx"].strip(), text[: m.start()].strip()
        elif m := _CONDITION_HEAD.match(text):
            context, text = m["ctx"].strip(), text[m.end() :].strip()
    subject = relation = obj = category = None
    if (m := _POSSESSIVE.match(text)) or (m := _OF_FORM.match(text)):
        subject, relation, obj = m["subj"], m["rel"].strip(), m["obj"]
        category = _category_for(relation)
    elif m := _VERB.match(text):
        relation, category = VERBS[m["verb"].lower()]
        subject, obj = m["subj"], m["obj"]
    elif m := _GENERIC.match(text):
        subject, relation, obj, category = m["subj"], m["verb"].lower(), m["obj"], "general"
    if subject is None or relation is None or obj is None or category is None:
        return None
    subject, obj = strip_article(subject.strip()), _clean_object(obj)
    if not name_key(subject) or not name_key(obj) or name_key(subject) in STOPWORDS:
        return None
    return Statement(subject, relation.replace(" ", "_"), obj, category, context, valid_from)


def parse_statements(text: str) -> list[Statement]:
    """Every simple statement of a text (sentences it cannot read are skipped)."""
    found = []
    for sentence in _SENTENCE.split(text):
        statement = parse_statement(sentence)
        if statement is not None:
            found.append(statement)
    return found


# --- questions --------------------------------------------------------------------------------

_CONTEXT_PREPOSITIONS = frozenset("in at on during while when for under".split())
_WH_CATEGORIES = {"where": "location", "who": "person", "whom": "person"}
_TOKEN = re.compile(r"[\w'’\-]+", re.UNICODE)


@dataclass(frozen=True)
class QuestionHints:
    phrases: tuple[str, ...]
    """Normalised word n-grams (longest first): candidate subject and context names."""
    terms: frozenset[str]
    """Stems of the content words: matched against relation names."""
    category_hint: str | None
    """A category the question word implies ("where" → location)."""
    context: str | None
    """A condition phrase the offline statement grammar recognises, if any."""
    context_phrases: tuple[str, ...] = ()
    """Context keys of the question's prepositional phrases ("at work" → "work"), longest
    first: a context is only read from a phrase that introduces one."""


def question_hints(question: str, *, max_n: int = 4) -> QuestionHints:
    tokens = [t.strip("'’-") for t in _TOKEN.findall(question)]
    tokens = [t for t in tokens if t]
    phrases: dict[str, None] = {}
    for n in range(min(max_n, len(tokens)), 0, -1):
        for i in range(len(tokens) - n + 1):
            key = name_key(" ".join(tokens[i : i + n]))
            if key and key not in STOPWORDS:
                phrases.setdefault(key, None)
    lowered = [t.casefold() for t in tokens]
    category = next((_WH_CATEGORIES[t] for t in lowered if t in _WH_CATEGORIES), None)
    body = question.strip().rstrip("?").strip()
    condition = _CONDITION_TAIL.search(body) or _CONDITION_HEAD.match(body)
    context = context_key(condition["ctx"]) if condition else None
    content = frozenset(stem(w) for w in words(question) if w not in STOPWORDS)
    contexts: dict[str, None] = {}
    for i, token in enumerate(lowered):
        if token not in _CONTEXT_PREPOSITIONS:
            continue
        for n in range(min(max_n, len(tokens) - i - 1), 0, -1):
            phrase = context_key(" ".join(tokens[i : i + 1 + n]))
            if phrase and phrase not in STOPWORDS:
                contexts.setdefault(phrase, None)
    return QuestionHints(tuple(phrases), content, category, context, tuple(contexts))
