"""Whether a retrieved insight applied to the task the agent finished: the evidence rule of the
offline controller.

Retrieval hands the agent insights; that a task was resolved with an insight in its prompt
says nothing about that insight unless the task could have used it. The offline controller
therefore counts evidence (KEEP on success; ARCHIVE, REVISE or PENALIZE on failure) only for
insights that applied, decided by the first of these rules that can tell:

1. structure: the task and the insight's source both have a task structure (the one they are
   recorded with, `task_similarity.recorded_key`: what a resolved trajectory did, else what
   the goal says; the insight's source is the tasks of its positive evidence, by majority)
   → it applied when they are the same;
2. actions: the insight recommends actions (a templated plan, "a; b; c") → it applied when at
   least ACTION_OVERLAP of them, normalised as the experience layer normalises actions
   (verb, object kind, receptacle kind; instance numbers and navigation dropped), occur in
   the trajectory;
3. otherwise nothing tells that the task used it: not applicable, no evidence either way.

An insight that applied by rule 1 or 2 still did not when the service found the task's goal
far from its sources' (`goal_close` False): the lexical similarity (`lexical.GoalIndex`, the
space's word weights) of the task's goal to most of its positive queries is below
SOURCE_GOAL_SIMILARITY. Kinds of task that share a structure and differ by a goal word (find
an animal / find a plant) then keep their evidence apart. The service leaves the goal rule out
when the task's kind is told, not learnt: by the caller's task_type or by a domain pack.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..experience.normalize import name_class, normalize_action
from ..task_similarity import majority, recorded_key, task_key
from .models import REVISION_MARKER, RetrievedInsight, Step

ACTION_OVERLAP = 0.5
"""Share of an insight's recommended actions the trajectory must contain (rule 2). A stated
constant, not a fitted one: on ALFWorld the structure rule decides first."""
SOURCE_GOAL_SIMILARITY = 0.9
"""The lexical similarity to its sources' goals a task's goal needs for an insight to have
applied to it. Chosen across worlds, as RetrievalParams.seed_margin (docs/insights.md)."""
_TEMPLATED = re.compile(r'^\s*What resolved ".*?":\s*(?P<plan>.*)$', re.DOTALL)

Action = tuple[str, str, str]


@dataclass(frozen=True)
class Applicability:
    applies: bool
    rule: str
    """Which rule decided: 'structure', 'actions', 'goal' or 'none'."""
    detail: str

    def explain(self) -> str:
        return f"[rule {self.rule}] {self.detail}"


def action_key(text: str) -> Action | None:
    """An action as the experience layer normalises it, without instance numbers; None for
    navigation ("go to …") and empty text."""
    key = normalize_action(text)
    if not key.type or key.type == "go":
        return None
    return (key.type, name_class(key.object), name_class(key.receptacle))


def recommended_actions(text: str) -> list[Action]:
    """The actions an insight recommends: the plan of a templated insight ('What resolved
    "…": a; b; c.'), or the ';'-separated parts of any other text that has some."""
    body = text.split(REVISION_MARKER)[0].strip().rstrip("(").strip()
    match = _TEMPLATED.match(body)
    if match is not None:
        body = match.group("plan")
    elif ";" not in body:
        return []
    parts = [p.strip().rstrip(".") for p in body.split(";")]
    found = [action_key(p) for p in parts if p]
    return list(dict.fromkeys(a for a in found if a is not None))


def source_key(insight: RetrievedInsight) -> str | None:
    """The structure most of the insight's positive queries were recorded with (a query
    recorded before structures were: read from its text)."""
    stored = list(insight.positive_keys) + [None] * len(insight.positive_queries)
    keys = [
        task_key(text) if key is None else key or None
        for text, key in zip(insight.positive_queries, stored, strict=False)
    ]
    return majority(keys)


def applicability(
    insight: RetrievedInsight,
    query: str,
    steps: Sequence[Step],
    *,
    resolved: bool = True,
    key: str | None = None,
    goal_close: bool | None = None,
) -> Applicability:
    """The rules of the module docstring, for one retrieved insight and the finished task
    (its structure as it is recorded, `key`: "" for none; when not given, read as
    `task_similarity.recorded_key` reads it). `goal_close` None: the goal rule is not used."""
    verdict = _by_structure_or_actions(insight, query, steps, resolved, key)
    if verdict.applies and goal_close is False:
        return Applicability(
            False,
            "goal",
            f"its source tasks' goals say something else (lexical similarity below "
            f"{SOURCE_GOAL_SIMILARITY} to most of them), although {verdict.detail}",
        )
    return verdict


def _by_structure_or_actions(
    insight: RetrievedInsight,
    query: str,
    steps: Sequence[Step],
    resolved: bool,
    key: str | None,
) -> Applicability:
    mine = recorded_key(query, resolved, [s.action for s in steps]) if key is None else key or None
    source = source_key(insight)
    if mine is not None and source is not None:
        if mine == source:
            return Applicability(True, "structure", f"same task structure as its source ({mine})")
        return Applicability(
            False, "structure", f"its source tasks are '{source}' tasks, this one is '{mine}'"
        )
    advised = recommended_actions(insight.text)
    if advised:
        done = {a for a in (action_key(s.action) for s in steps) if a is not None}
        shared = sum(1 for a in advised if a in done)
        applies = shared >= ACTION_OVERLAP * len(advised)
        return Applicability(
            applies,
            "actions",
            f"{shared} of its {len(advised)} recommended actions occur in the trajectory",
        )
    return Applicability(
        False, "none", "no task structure or recommended actions to compare with the task"
    )
