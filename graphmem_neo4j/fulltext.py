"""Turn free text into a safe full-text query for each engine.

User text never reaches the full-text parser as syntax: it is cut into plain word tokens, which
are then OR-ed, so quotes, operators and wildcards in a question mean nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer

from .queries import Dialect

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_TOKEN = re.compile(r"\w+", re.UNICODE)
_ENGLISH = snowballstemmer.stemmer("english")

STEM_MIN_LENGTH = 4
"""FalkorDB's full-text index (RediSearch, language english) adds the Snowball stem of a token
only for tokens of at least this many characters: "ads" does not find "ad"; "cats" finds "cat"."""

STOPWORDS = frozenset(
    (
        "a an and are as at be but by did do does for from had has have he her him his how i if "
        "in into is it its me my no not of on or our she so than that the their them then there "
        "these they this to was we were what when where which who whom why will with would you "
        "your"
    ).split()
)


def terms(text: str, *, limit: int = 32) -> list[str]:
    """Lower-cased word tokens without stopwords, first occurrence order, at most `limit`."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if word not in STOPWORDS and len(word) > 1:
            seen.setdefault(word, None)
    return list(seen)[:limit]


def fulltext_query(text: str, dialect: Dialect) -> str | None:
    """An OR-query of the text's terms, or None when nothing searchable is left."""
    words = terms(text)
    if not words:
        return None
    if dialect == "neo4j":
        # Lucene: tokens are [^\W_]+ so none of + - && || ! ( ) { } [ ] ^ " ~ * ? : \ / remain.
        return " OR ".join(words)
    # RediSearch: '|' is OR; tokens hold no punctuation, so nothing needs escaping.
    return "|".join(words)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball's English (Porter2) stem of a lower-cased word, the stemmer RediSearch uses."""
    return str(_ENGLISH.stemWord(word))


def stem_keys(text: str) -> str:
    """What `Turn.stems` holds, for Neo4j's full-text index (whitespace analyser): each token of
    the text, lower-cased, and the Snowball stem of each token of STEM_MIN_LENGTH characters or
    more. These are the entries FalkorDB's own index makes of the same text, so a word finds the
    same turns on both engines; Neo4j's `english` analyser stems with Porter's original
    algorithm, under which "use" finds "us" and "focus" does not find "focused"."""
    keys: dict[str, None] = {}
    for token in _TOKEN.findall(text.lower()):
        keys.setdefault(token, None)
        if len(token) >= STEM_MIN_LENGTH:
            keys.setdefault(stem(token), None)
    return " ".join(keys)


def stem_lookup(term: str) -> str:
    """The Neo4j full-text query for one lower-cased word over `stem_keys`: the word or its
    stem, what RediSearch looks up for it. Words hold no query syntax (see `terms`)."""
    root = stem(term)
    return term if root == term else f"{term} {root}"
