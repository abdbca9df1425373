"""The offline graph controller: deterministic rules standing in for the LLM of §3.4.

For each retrieved insight, with P and N its positive and negative evidence before this task:

0. The insight did not apply to the task (insights/applicability.py: another task structure,
   or none of its recommended actions in the trajectory) → NOT_APPLICABLE: no evidence either
   way, only the audit record saying which rule decided.
1. Task resolved → KEEP (the query joins Ω⁺, eq. 17).
2. Task failed, the insight was archived since it was retrieved → PENALIZE (Ω⁻ only).
3. Task failed and N + 1 > P (negative evidence now outweighs positive) → ARCHIVE (eq. 13).
4. Task failed, support still outweighs the failure, at least REVISE_MIN_SUPPORT queries
   support the insight, and it can be narrowed → REVISE (eq. 14-15): the revision keeps the
   text and adds a condition, "Applies only when the task mentions: w1, w2", built from words
   shared by most of its positive queries (both, when it has two) and absent from every
   negative query, this one included. One supporting query is too little to tell what made
   the insight work, so such an insight is penalised instead. An insight that already carries
   a condition is not revised again.
5. Otherwise → PENALIZE: the query joins Ω⁻ and the insight stays active.

ADD (eq. 16): a resolved task adds one templated insight (the query and its steps compressed
to a plan) unless an active insight already covers it (cosine ≥ COVER_SIMILARITY, checked by
the service). Failed tasks add nothing.

An ablated controller (§4.3) falls back to the next rule that is allowed, and finally to NONE.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from ..fulltext import STOPWORDS
from .applicability import applicability
from .models import (
    FULL_CONTROLLER,
    REVISION_MARKER,
    AddDecision,
    ControllerInput,
    ControllerPlan,
    EditDecision,
    RetrievedInsight,
    Step,
)

OFFLINE = "controller:offline"
COVER_SIMILARITY = 0.85
MAX_KEYWORDS = 3
REVISE_MIN_SUPPORT = 2
"""Positive queries an insight needs before a failure narrows it instead of penalising it."""
MAX_PLAN_STEPS = 10
_WORD = re.compile(r"[a-z][a-z'-]+")
_NUMBER = re.compile(r"\b\d+\b")


def words(text: str) -> set[str]:
    """Content words of a text: lower-case, no stopwords, no numbers, at least 3 letters."""
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in STOPWORDS}


def is_conditional(text: str) -> bool:
    return REVISION_MARKER in text


def narrowing_keywords(positive: Sequence[str], negative: Iterable[str]) -> list[str]:
    """Words that mark where an insight worked: in a strict majority of its positive queries
    (the only one, if it has one) and in none of its negative ones; most frequent first, at
    most MAX_KEYWORDS."""
    if not positive:
        return []
    counts: Counter[str] = Counter()
    for text in positive:
        counts.update(words(text))
    banned: set[str] = set()
    for text in negative:
        banned |= words(text)
    kept = [
        w
        for w, n in counts.items()
        if (2 * n > len(positive) or len(positive) == 1) and w not in banned
    ]
    kept.sort(key=lambda w: (-counts[w], w))
    return kept[:MAX_KEYWORDS]


def revised_text(text: str, keywords: Sequence[str]) -> str:
    return f"{text.rstrip()} ({REVISION_MARKER} {', '.join(keywords)}.)"


def condition_keywords(text: str) -> list[str]:
    """The words of a revision's condition, or [] for an unconditional insight."""
    if not is_conditional(text):
        return []
    tail = text.split(REVISION_MARKER, 1)[1]
    return [w.strip(" .)") for w in tail.split(",") if w.strip(" .)")]


def _normalise_action(action: str) -> str:
    return " ".join(_NUMBER.sub(" ", action.lower()).split())


def plan_of(steps: Sequence[Step]) -> list[str]:
    """A trajectory compressed to a plan: numbers dropped, and of each run of steps that start
    with the same word (exploration: "go to shelf 1", "go to shelf 2", ...) only the last."""
    actions = [_normalise_action(s.action) for s in steps if s.action.strip()]
    actions = [a for a in actions if a]
    plan: list[str] = []
    for i, action in enumerate(actions):
        verb = action.split()[0]
        following = actions[i + 1].split()[0] if i + 1 < len(actions) else None
        if following == verb:
            continue
        if not plan or plan[-1] != action:
            plan.append(action)
    return plan[-MAX_PLAN_STEPS:]


def templated_insight(query: str, steps: Sequence[Step]) -> str | None:
    """The offline ADD text for a resolved task, or None when it has no steps to learn from."""
    plan = plan_of(steps)
    if not plan:
        return None
    task = " ".join(query.split())
    return f'What resolved "{task}": {"; ".join(plan)}.'


def _edit_for_failure(
    insight: RetrievedInsight, query: str, allowed: frozenset[str]
) -> EditDecision:
    p, n = insight.positive_total, insight.negative_total
    penalize = EditDecision(
        insight.id,
        "PENALIZE",
        reason=f"task failed with this insight retrieved; negative evidence {n + 1} "
        f"does not outweigh positive {p}, so it stays active",
    )
    if not insight.active:
        penalize = EditDecision(
            insight.id,
            "PENALIZE",
            reason="task failed with this insight retrieved; it was archived meanwhile",
        )
        return penalize if "PENALIZE" in allowed else _none(insight.id, "PENALIZE")
    if n + 1 > p:
        if "ARCHIVE" in allowed:
            return EditDecision(
                insight.id,
                "ARCHIVE",
                reason=f"task failed with this insight retrieved; negative evidence {n + 1} "
                f"now outweighs positive {p}",
            )
        return _none(insight.id, "ARCHIVE")
    if "REVISE" in allowed and p >= REVISE_MIN_SUPPORT and not is_conditional(insight.text):
        keywords = narrowing_keywords(insight.positive_queries, [*insight.negative_queries, query])
        if keywords:
            return EditDecision(
                insight.id,
                "REVISE",
                revised_text=revised_text(insight.text, keywords),
                reason=f"task failed, but {p} positive queries support this insight: narrowed to "
                f"tasks mentioning {', '.join(keywords)} (words of its positive queries that "
                "none of its negative queries contain)",
            )
    return penalize if "PENALIZE" in allowed else _none(insight.id, "PENALIZE")


def _none(insight_id: str, wanted: str) -> EditDecision:
    return EditDecision(
        insight_id, "NONE", reason=f"rules chose {wanted}, which this controller may not do"
    )


def offline_plan(
    task: ControllerInput,
    *,
    candidate: str | None,
    covered_by: str | None,
    allowed: frozenset[str] = FULL_CONTROLLER,
    goal_close: Mapping[str, bool] | None = None,
) -> ControllerPlan:
    """The offline rules above. `candidate` is templated_insight(...) for this task and
    `covered_by` the id of an active insight that already says it (the service looks it up);
    `goal_close`, by insight id, applicability's goal rule (the service reads the goals)."""
    edits: list[EditDecision] = []
    for insight in task.retrieved:
        verdict = applicability(
            insight,
            task.query,
            task.steps,
            resolved=task.status == "resolved",
            key=task.task_key,
            goal_close=(goal_close or {}).get(insight.id),
        )
        if not verdict.applies:
            edits.append(EditDecision(insight.id, "NOT_APPLICABLE", reason=verdict.explain()))
        elif task.status == "resolved":
            state = "" if insight.active else " (it stays archived)"
            edits.append(
                EditDecision(
                    insight.id,
                    "KEEP",
                    reason=f"task resolved with this insight, which applied{state}; "
                    + verdict.explain(),
                )
            )
        else:
            edit = _edit_for_failure(insight, task.query, allowed)
            edits.append(replace(edit, reason=f"{edit.reason}; {verdict.explain()}"))
    if task.status != "resolved":
        add = AddDecision(False, reason="failed tasks add no insight")
    elif candidate is None:
        add = AddDecision(False, reason="no steps to distil an insight from")
    elif covered_by is not None:
        add = AddDecision(False, reason=f"already covered by active insight {covered_by}")
    else:
        add = AddDecision(True, candidate, reason="resolved task not covered by an active insight")
    return ControllerPlan(tuple(edits), add, decided_by=OFFLINE)
