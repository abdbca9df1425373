"""Normalisation: the keys that identify subjects, relations, categories and contexts, word
stems for matching, ISO-8601 times, and content-derived unit ids. Pure functions."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import UTC, datetime

_SPACE = re.compile(r"\s+")
_EDGE_PUNCT = re.compile(r"^[\W_]+|[\W_]+$", re.UNICODE)
_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")
_LEADING_ARTICLE = re.compile(r"^(?:the|a|an)\s+")
_CONTEXT_PREFIX = re.compile(
    r"^(?:(?:in|at|on|during|while|when|for|under|within|inside|outside|if)\s+)?(?:the|a|an)?\s*"
)

STOPWORDS = frozenset(
    (
        "a an and are as at be been being but by can could did do does doing for from had has "
        "have how i if in into is it its me my of on or our she he so than that the their them "
        "then there these they this to was we were what when where which who whom whose why "
        "will with would you your currently current now today still right"
    ).split()
)


def _clean(text: str) -> str:
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text)).strip()


def name_key(name: str) -> str:
    """Key of a subject or object: case-folded, spaces collapsed, edge punctuation and a
    possessive 's dropped ("Alice's" and "alice" are one subject)."""
    text = _clean(name).casefold()
    text = _POSSESSIVE.sub("", text)
    text = _EDGE_PUNCT.sub("", text)
    return _SPACE.sub(" ", text).strip()


def relation_key(relation: str) -> str:
    """`Lives in`, `lives_in` and `LIVES-IN` are one relation: `lives_in`."""
    return _NON_WORD.sub("_", _clean(relation).casefold()).strip("_")


def category_key(category: str) -> str:
    return relation_key(category)


def context_key(context: str | None) -> str | None:
    """ "in the evening" and "evening" are one context; None or blank means no context."""
    if context is None:
        return None
    text = name_key(context)
    text = _CONTEXT_PREFIX.sub("", text, count=1).strip()
    return text or None


def stem(word: str) -> str:
    """A crude suffix stripper, enough to match "lives" with "live" and "working" with "work"."""
    w = word.casefold()
    if len(w) <= 3:
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("es") and w[:-2].endswith(("s", "x", "z", "ch", "sh")):
        w = w[:-2]
    elif w.endswith("ing") and len(w) >= 6:
        w = w[:-3]
    elif w.endswith("ed") and len(w) >= 5:
        w = w[:-2]
    elif w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    # "live", "lives", "lived" and "living" all end as "liv"
    return w[:-1] if w.endswith("e") and len(w) > 3 else w


def words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(unicodedata.normalize("NFKC", text))]


def terms(text: str) -> frozenset[str]:
    """Stems of the content words of a text (relation names use '_' as a separator)."""
    return frozenset(stem(w) for w in words(text.replace("_", " ")) if w not in STOPWORDS)


def relation_phrase(relation: str) -> str:
    return _clean(relation.replace("_", " "))


def unit_text(subject: str, relation: str, obj: str, context: str | None) -> str:
    """What a person reads for a unit (its caption) and what gets embedded."""
    text = f"{_clean(subject)} {relation_phrase(relation)} {_clean(obj)}"
    return f"{text} ({_clean(context)})" if context else text


# --- time ------------------------------------------------------------------------------------

_YEAR = re.compile(r"^\d{4}$")
_YEAR_MONTH = re.compile(r"^\d{4}-\d{2}$")


def parse_time(value: str) -> int:
    """ISO-8601 (a year, year-month, date, or date-time with or without offset; naive means
    UTC) to epoch milliseconds. Raises ValueError with a readable message."""
    text = value.strip()
    try:
        if _YEAR.match(text):
            moment = datetime(int(text), 1, 1, tzinfo=UTC)
        elif _YEAR_MONTH.match(text):
            moment = datetime(int(text[:4]), int(text[5:7]), 1, tzinfo=UTC)
        else:
            moment = datetime.fromisoformat(text)
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
    except ValueError as e:
        raise ValueError(f"not an ISO-8601 time: {value!r}") from e
    return int(moment.timestamp() * 1000)


def format_time(ms: int | None) -> str | None:
    """Epoch milliseconds to ISO-8601 UTC, for output."""
    if ms is None:
        return None
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.isoformat().replace("+00:00", "Z")


def unit_id(
    subject_key: str,
    relation_key: str,
    object_key: str,
    category_key: str,
    context_key: str | None,
    valid_from: str | None,
    source: str | None,
) -> str:
    """A content-derived id, so the same fact ingested twice is stored once."""
    parts = (
        subject_key,
        relation_key,
        object_key,
        category_key,
        context_key or "",
        valid_from or "",
        source or "",
    )
    digest = hashlib.blake2b("\x1f".join(parts).encode("utf-8"), digest_size=10).hexdigest()
    return f"mu-{digest}"


def strip_article(text: str) -> str:
    return _LEADING_ARTICLE.sub("", text)
