"""Lexical similarity of goal texts, weighted by what a space's own goals share.

Goals of one world are long and mostly the same words ("Your task is to ... First, focus on
the thing. Then, move it to the red box in the kitchen."): a sentence embedding of the whole
goal is dominated by what every goal says, and two kinds of task whose goals differ by one word
("find an animal" / "find a plant") come out nearly equal. Here each word weighs its inverse
document frequency over the goals stored in the space, idf(w) = ln((N + 1) / (df(w) + 1)): a
word every stored goal has weighs 0, a rare one the most. Nothing about any world is written
here: what is boilerplate is learnt from the space's goals.

The similarity of two goals is the cosine of their tf-idf vectors (words, stop words left out,
plus adjacent word pairs, so that word order counts a little), in [0, 1].
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping

from .fulltext import STOPWORDS

_WORD = re.compile(r"[a-z0-9]+")


def terms(text: str) -> Counter[str]:
    """The goal's words (no stop words) and adjacent word pairs, with their counts."""
    words = _WORD.findall(text.lower())
    found: Counter[str] = Counter(w for w in words if w not in STOPWORDS)
    found.update(f"{a} {b}" for a, b in itertools.pairwise(words))
    return found


class GoalIndex:
    """The goals stored in one space, by id, and the document frequency of their terms."""

    def __init__(self) -> None:
        self._terms: dict[str, Counter[str]] = {}
        self._df: Counter[str] = Counter()
        self._vectors: dict[str, tuple[dict[str, float], float]] = {}
        """Weighted vectors and norms, valid until a goal is added (IDF moves)."""

    def __len__(self) -> int:
        return len(self._terms)

    def add(self, goal_id: str, text: str) -> None:
        """Store a goal (again: replaced)."""
        if goal_id in self._terms:
            self._df.subtract(self._terms[goal_id].keys())
        found = terms(text)
        self._terms[goal_id] = found
        self._df.update(found.keys())
        self._vectors.clear()

    def add_all(self, goals: Iterable[tuple[str, str]]) -> None:
        for goal_id, text in goals:
            self.add(goal_id, text)

    def idf(self, term: str) -> float:
        """ln((N + 1) / (df + 1)): 0 for a term every stored goal has."""
        return math.log((len(self._terms) + 1) / (self._df[term] + 1))

    def _weighted(self, found: Mapping[str, int]) -> tuple[dict[str, float], float]:
        vector = {t: c * self.idf(t) for t, c in found.items()}
        vector = {t: w for t, w in vector.items() if w > 0}
        return vector, math.sqrt(sum(w * w for w in vector.values()))

    def _stored(self, goal_id: str) -> tuple[dict[str, float], float] | None:
        if goal_id not in self._terms:
            return None
        found = self._vectors.get(goal_id)
        if found is None:
            found = self._weighted(self._terms[goal_id])
            self._vectors[goal_id] = found
        return found

    def similarities(self, text: str, goal_ids: Iterable[str]) -> dict[str, float]:
        """Cosine of the goal `text` with each stored goal named (0 for one not stored, or
        when either has no weighted term)."""
        query, query_norm = self._weighted(terms(text))
        found: dict[str, float] = {}
        for goal_id in goal_ids:
            stored = self._stored(goal_id)
            if stored is None or not query_norm or not stored[1]:
                found[goal_id] = 0.0
                continue
            vector, norm = stored
            dot = sum(w * vector.get(t, 0.0) for t, w in query.items())
            found[goal_id] = dot / (query_norm * norm)
        return found
