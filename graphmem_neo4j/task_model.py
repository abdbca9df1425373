"""Predicting a task's structure from its goal text, learned from a space's own history.

Before an agent acts, only its goal is known; what the goal asks to do is learned, per space,
from the space's resolved tasks: each pairs a goal text with the structure its trajectory
carried out (`task_structure`) or the type its caller gave. The model is a multinomial naive
Bayes over the goal's words and word pairs (Laplace smoothing), refitted whenever the space has
more labelled tasks than when it was last fitted, so it learns as tasks arrive and only from
tasks already recorded.

It abstains (None) when it is unsure: fewer than `MIN_EXAMPLES` labelled tasks, fewer than two
structures seen, a goal with no word it has seen, or a posterior below `MIN_POSTERIOR`. Then
sentence similarity decides alone.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from .fulltext import STOPWORDS

_WORD = re.compile(r"[a-z][a-z0-9]*")
_TASK_PREFIX = re.compile(r"^\s*your task is to\s*:?\s*", re.IGNORECASE)

MIN_EXAMPLES = 5
"""Labelled tasks a space needs before the model predicts at all."""
MIN_POSTERIOR = 0.6
"""Posterior probability below which the model abstains. Both constants are chosen on the
ALFWorld development stream in replay order (seeds 0-2, `benchmarks/insights_replay.py`):
a wrong structure costs a task all its similar tasks while an abstention only leaves it to
sentence similarity, and 0.6 / 5 maximise right + chance x abstained there (0.91 right, 0.04
wrong against 0.86 / 0.02 at 0.9); ScienceWorld, not used to choose them, is the check."""
ALPHA = 0.5
"""Laplace smoothing of the word counts."""


def features(goal: str) -> list[str]:
    """The goal's words (no stop words) and its adjacent word pairs (stop words included, so
    "put them" and "put it" differ)."""
    words = _WORD.findall(_TASK_PREFIX.sub("", goal.lower()))
    content = [w for w in words if w not in STOPWORDS]
    pairs = [f"{a}_{b}" for a, b in itertools.pairwise(words)]
    return content + pairs


@dataclass
class GoalModel:
    """Naive Bayes over goal features, one class per structure."""

    examples: int = 0
    class_counts: Counter[str] = field(default_factory=Counter)
    feature_counts: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    totals: Counter[str] = field(default_factory=Counter)
    vocabulary: set[str] = field(default_factory=set)
    _answers: dict[str, str | None] = field(default_factory=dict, repr=False)
    """Predictions since the model last learnt (retrieval asks about the same stored goals
    again and again)."""

    @classmethod
    def fit(cls, labelled: Iterable[tuple[str, str]]) -> GoalModel:
        model = cls()
        for goal, key in labelled:
            model.learn(goal, key)
        return model

    def learn(self, goal: str, key: str) -> None:
        if not key:
            return
        found = features(goal)
        self._answers.clear()
        self.examples += 1
        self.class_counts[key] += 1
        self.feature_counts[key].update(found)
        self.totals[key] += len(found)
        self.vocabulary.update(found)

    def posterior(self, goal: str) -> dict[str, float]:
        """P(structure | goal) over the structures seen ({} when no goal word is known)."""
        found = [f for f in features(goal) if f in self.vocabulary]
        if not found or not self.class_counts:
            return {}
        size = len(self.vocabulary)
        logs = {}
        for key, n in self.class_counts.items():
            counts, total = self.feature_counts[key], self.totals[key]
            score = math.log(n / self.examples)
            for f in found:
                score += math.log((counts[f] + ALPHA) / (total + ALPHA * size))
            logs[key] = score
        top = max(logs.values())
        weights = {k: math.exp(v - top) for k, v in logs.items()}
        norm = sum(weights.values())
        return {k: w / norm for k, w in weights.items()}

    def predict(self, goal: str) -> str | None:
        """The structure the goal most likely asks for, or None when unsure."""
        if self.examples < MIN_EXAMPLES or len(self.class_counts) < 2:
            return None
        if goal not in self._answers:
            if len(self._answers) >= 100_000:
                self._answers.clear()
            probabilities = self.posterior(goal)
            key = max(probabilities, key=lambda k: probabilities[k]) if probabilities else None
            sure = key is not None and probabilities[key] >= MIN_POSTERIOR
            self._answers[goal] = key if sure else None
        return self._answers[goal]
