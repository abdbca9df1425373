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

A goal's words name either what kind of task it is ("heat", "hot", "animal", "longest") or
what it acts on ("tomato", "fridge", "red box", 'final_report.pdf'). The space's own
trajectories tell the two apart: a word its recorded actions use as an argument
(`task_structure.parse_action`) is an argument word, and terms holding one weigh nothing. Two
goals of one kind about different things ("put a hot tomato in the fridge" / "put a hot apple
on the counter") then match, and two kinds worded alike ("find an animal … red box" / "find a
plant … red box") do not.

A goal with a word no stored goal has and no recorded action used as an argument may be a kind
of task the space has not seen ("melt gallium" after many "change the state of matter of
tin"), or only worded freely (a user's request to a tool-calling agent). The space's resolved
tasks tell which, as they arrive: of the goals that brought a new word, how many turned out to
be of a structure no earlier task had (`new_word_means_new_kind`).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping

from .fulltext import STOPWORDS
from .task_structure import parse_action

_WORD = re.compile(r"[a-z0-9]+")

MIN_GOALS = 10
"""Goals a space needs before its word weights say anything (a stated constant, not a fitted
one): learnt from a handful of goals, every shared word is common and every word new."""

NEW_WORD_LIFT = 1.5
"""How many times likelier than the space's average a goal with a new word must have been of a
new kind before a new word counts as a sign of one (docs/insights.md, "New words")."""


def terms(text: str) -> Counter[str]:
    """The goal's words (no stop words) and adjacent word pairs, with their counts."""
    words = _WORD.findall(text.lower())
    found: Counter[str] = Counter(w for w in words if w not in STOPWORDS)
    found.update(f"{a} {b}" for a, b in itertools.pairwise(words))
    return found


def argument_words(actions: Iterable[str]) -> set[str]:
    """The words the actions use in their arguments ("take tomato 1 from countertop 1" →
    tomato, 1, countertop; "mv(source='a.pdf', destination='temp')" → a, pdf, temp)."""
    found: set[str] = set()
    for action in actions:
        for argument in parse_action(action).args:
            found.update(_WORD.findall(argument.lower()))
    return found


class GoalIndex:
    """The goals stored in one space, by id, the document frequency of their terms, and the
    argument words of their tasks' actions."""

    def __init__(self) -> None:
        self._terms: dict[str, Counter[str]] = {}
        self._df: Counter[str] = Counter()
        self._arguments: set[str] = set()
        self._vectors: dict[str, tuple[dict[str, float], float]] = {}
        """Weighted vectors and norms, valid until a goal is added (IDF moves)."""
        self._kinds: set[str] = set()
        self._kind_goals = 0
        """Goals added with their kind once the space had MIN_GOALS."""
        self._new_kinds = 0
        """Of those, the ones whose kind no earlier goal had."""
        self._new_word_goals = 0
        """Of the goals counted in _kind_goals, those that brought a new word."""
        self._new_word_new_kinds = 0
        """Of those, the ones whose kind no earlier goal had."""

    def __len__(self) -> int:
        return len(self._terms)

    def add(
        self, goal_id: str, text: str, actions: Iterable[str] = (), *, kind: str | None = None
    ) -> None:
        """Store a goal (again: replaced), and learn the argument words of its task's actions
        and, with the `kind` of task it turned out to be (a resolved task's structure), whether
        a new word in a goal says a new kind in this space."""
        if kind is not None:
            if goal_id not in self._terms and len(self) >= MIN_GOALS:
                new_kind = kind not in self._kinds
                self._kind_goals += 1
                self._new_kinds += new_kind
                if self.new_words(text):
                    self._new_word_goals += 1
                    self._new_word_new_kinds += new_kind
            self._kinds.add(kind)
        self.add_arguments(actions)
        if goal_id in self._terms:
            self._df.subtract(self._terms[goal_id].keys())
        found = terms(text)
        self._terms[goal_id] = found
        self._df.update(found.keys())
        self._vectors.clear()

    def add_arguments(self, actions: Iterable[str]) -> bool:
        """Learn the argument words of actions; whether any was new."""
        new = argument_words(actions) - self._arguments
        if new:
            self._arguments |= new
            self._vectors.clear()
        return bool(new)

    def add_all(self, goals: Iterable[tuple[str, str, Iterable[str]]]) -> None:
        """Store goals given as (id, text, their task's actions)."""
        for goal_id, text, actions in goals:
            self.add(goal_id, text, actions)

    def new_words(self, text: str) -> set[str]:
        """The goal's words (no stop words, no numbers) that no stored goal has and no
        recorded action used as an argument."""
        return {
            w
            for w in _WORD.findall(text.lower())
            if w not in STOPWORDS
            and not w.isdigit()
            and self._df[w] == 0
            and w not in self._arguments
        }

    def new_word_means_new_kind(self) -> bool:
        """Whether, in this space, a new word in a goal is a sign of a new kind of task: until
        a goal with a new word has been resolved, yes; then while such goals have been of a
        kind no earlier goal was at least NEW_WORD_LIFT times as often as all its goals. In a
        world of templated goals a new word names a new kind of task; in free requests most
        goals bring one, and it says nothing."""
        if not self._new_word_goals:
            return True
        rate_with_new_word = self._new_word_new_kinds * self._kind_goals
        lift_line = NEW_WORD_LIFT * self._new_kinds * self._new_word_goals
        return self._new_word_new_kinds > 0 and rate_with_new_word >= lift_line

    def idf(self, term: str) -> float:
        """ln((N + 1) / (df + 1)): 0 for a term every stored goal has."""
        return math.log((len(self._terms) + 1) / (self._df[term] + 1))

    def _weighted(self, found: Mapping[str, int]) -> tuple[dict[str, float], float]:
        vector = {
            t: c * self.idf(t) for t, c in found.items() if self._arguments.isdisjoint(t.split(" "))
        }
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

    def text_similarities(self, text: str, others: Iterable[str]) -> list[float]:
        """The similarity of the goal `text` to each of the goal texts `others` (stored or
        not), under the stored goals' word weights."""
        query = self._weighted(terms(text))
        return [_cosine(query, self._weighted(terms(other))) for other in others]

    def stored_similarity(self, a: str, b: str) -> float:
        """The similarity of two stored goals under the current word weights (0 when either
        is not stored)."""
        first, second = self._stored(a), self._stored(b)
        return 0.0 if first is None or second is None else _cosine(first, second)

    def similarities(self, text: str, goal_ids: Iterable[str]) -> dict[str, float]:
        """The similarity of the goal `text` to each stored goal named (0 for one not
        stored)."""
        query = self._weighted(terms(text))
        found: dict[str, float] = {}
        for goal_id in goal_ids:
            stored = self._stored(goal_id)
            found[goal_id] = 0.0 if stored is None else _cosine(query, stored)
        return found


def _cosine(a: tuple[dict[str, float], float], b: tuple[dict[str, float], float]) -> float:
    """Cosine of two weighted vectors. Two goals of which no term weighs anything say nothing
    beyond what every goal says and their arguments: alike (1); only one of them: 0."""
    (va, na), (vb, nb) = a, b
    if not na or not nb:
        return 1.0 if not na and not nb else 0.0
    return sum(w * vb.get(t, 0.0) for t, w in va.items()) / (na * nb)
