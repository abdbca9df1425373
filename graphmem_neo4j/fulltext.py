"""Turn free text into a safe full-text query for each engine.

User text never reaches the full-text parser as syntax: it is cut into plain word tokens, which
are then OR-ed, so quotes, operators and wildcards in a question mean nothing.
"""

from __future__ import annotations

import re

from .queries import Dialect

_WORD = re.compile(r"[^\W_]+", re.UNICODE)

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
