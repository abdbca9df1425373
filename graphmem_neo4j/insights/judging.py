"""The graph controller against the graph (EvoGraph-Mem §3.4): decide, store the plan, apply.

The plan is stored on the query before any edit, so a run interrupted half-way is finished,
with the same edits, by the next; each edit is one idempotent statement with its audit record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..errors import LLMError
from ..schema import now_ms
from ..store.write_lock import exclusive_space
from ..task_similarity import recorded_key
from .applicability import SOURCE_GOAL_SIMILARITY
from .controller import llm_plan, restrict
from .deps import Parts
from .goal_index import SpaceGoals
from .models import (
    FULL_CONTROLLER,
    AddDecision,
    ControllerInput,
    ControllerPlan,
    EditDecision,
    FeedbackResult,
    stable_id,
)
from .parsing import check_id
from .reading import controller_input, task_row
from .rules import COVER_SIMILARITY, OFFLINE, offline_plan, templated_insight

_EVIDENCE_WRITES = (
    ("KEEP", "insights/apply_keep"),
    ("PENALIZE", "insights/apply_penalize"),
    ("NOT_APPLICABLE", "insights/apply_not_applicable"),
)


class Judge:
    def __init__(self, parts: Parts, goals: SpaceGoals) -> None:
        self.parts = parts
        self.goals = goals

    def feedback(
        self,
        task_id: str,
        *,
        space: str,
        dry_run: bool = False,
        allowed: frozenset[str] = FULL_CONTROLLER,
        requested_by: str = "api",
    ) -> FeedbackResult:
        check_id(task_id, field="task_id")
        self.parts.require_space(space)
        with exclusive_space(self.parts.store, space):
            return self.feedback_locked(task_id, space, dry_run, allowed, requested_by)

    def feedback_locked(
        self,
        task_id: str,
        space: str,
        dry_run: bool,
        allowed: frozenset[str],
        requested_by: str,
    ) -> FeedbackResult:
        """`feedback` under the space's writer lock, so that two judgements cannot both find
        no insight covering a lesson and both add it."""
        store = self.parts.store
        row = task_row(store, task_id, space)
        task = controller_input(store, row, space)
        if row["feedback_at"] is not None:
            plan = ControllerPlan.from_json(row["plan_json"])
            return FeedbackResult(task_id, plan, applied=False, already_applied=True)
        if row["plan_json"] is not None:
            plan = ControllerPlan.from_json(row["plan_json"])
        else:
            plan = self._decide(task, space, allowed, typed=row.get("task_type") is not None)
        if dry_run:
            return FeedbackResult(task_id, plan, applied=False, already_applied=False)
        stored = store.write(
            "insights/save_plan",
            {"space": space, "id": task_id, "plan_json": plan.to_json(), "now": now_ms()},
        )
        plan = ControllerPlan.from_json(stored[0]["plan_json"])
        created, archived = self._apply(plan, task, space, requested_by)
        store.write("insights/finish_feedback", {"space": space, "id": task_id, "now": now_ms()})
        return FeedbackResult(
            task_id, plan, applied=True, already_applied=False, created=created, archived=archived
        )

    def pending(self, *, space: str, limit: int = 100_000) -> list[str]:
        self.parts.require_space(space)
        rows = self.parts.store.read("insights/pending_tasks", {"space": space, "limit": limit})
        return [str(r["id"]) for r in rows]

    def _decide(
        self, task: ControllerInput, space: str, allowed: frozenset[str], *, typed: bool
    ) -> ControllerPlan:
        llm = self.parts.llm_for(space)
        if llm is not None:
            try:
                plan = restrict(llm_plan(llm, task), allowed)
            except LLMError as e:
                if self.parts.settings.llm_fallback == "error":
                    raise
                plan = self._offline(task, space, allowed, typed=typed)
                return replace(plan, decided_by=f"{OFFLINE} (LLM failed: {e})")
            if plan.add.decision and plan.add.text is not None:
                covered = self.covering(plan.add.text, space, _recorded(task))
                if covered is not None:
                    add = AddDecision(
                        False,
                        reason=f"the LLM proposed {plan.add.text!r}, but active insight "
                        f"{covered} already says it",
                    )
                    plan = replace(plan, add=add)
            return plan
        return self._offline(task, space, allowed, typed=typed)

    def _offline(
        self, task: ControllerInput, space: str, allowed: frozenset[str], *, typed: bool
    ) -> ControllerPlan:
        candidate = templated_insight(task.query, task.steps) if task.status == "resolved" else None
        covered = (
            self.covering(candidate, space, _recorded(task)) if candidate is not None else None
        )
        return offline_plan(
            task,
            candidate=candidate,
            covered_by=covered,
            allowed=allowed,
            goal_close=None if typed else self.goal_close(task, space),
        )

    def goal_close(self, task: ControllerInput, space: str) -> dict[str, bool] | None:
        """Per retrieved insight with positive queries: is the task's goal lexically close
        (SOURCE_GOAL_SIMILARITY) to most of them? None when a domain pack reads the space's
        goals: the kind is then told, not learnt (as by a caller's task_type, see _offline)."""
        if self.parts.structures(space, "insights").pack is not None:
            return None
        index = self.goals.index(self.parts.store, space, fresh=True)  # with this task's actions
        found = {}
        for insight in task.retrieved:
            if insight.positive_queries:
                sims = index.text_similarities(task.query, insight.positive_queries)
                close = sum(1 for s in sims if s >= SOURCE_GOAL_SIMILARITY)
                found[insight.id] = 2 * close > len(sims)
        return found

    def covering(self, text: str, space: str, key: str | None) -> str | None:
        """An active insight that can serve tasks of this structure and says nearly the same
        (cosine ≥ COVER_SIMILARITY), if any."""
        self.parts.ensure_embedder_matches()
        vector = self.parts.embedder.embed([text])[0]
        rows = self.parts.store.read(
            "insights/covering_insight", {"space": space, "embedding": vector, "task_key": key}
        )
        if rows and float(rows[0]["similarity"]) >= COVER_SIMILARITY:
            return str(rows[0]["id"])
        return None

    def _apply(
        self, plan: ControllerPlan, task: ControllerInput, space: str, requested_by: str
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        store = self.parts.store
        common = {
            "space": space,
            "query_id": task.task_id,
            "actor": plan.decided_by,
            "requested_by": requested_by,
            "now": now_ms(),
        }
        by_op: dict[str, list[EditDecision]] = {}
        for edit in plan.edits:
            by_op.setdefault(edit.operation, []).append(edit)
        for operation, query in _EVIDENCE_WRITES:
            rows = [_edit_row(task.task_id, e) for e in by_op.get(operation, [])]
            if rows:
                store.write(query, {**common, "rows": rows})
        # eq. 18: new and revised insights are contextualised by the retrieved insights when
        # the task was resolved; an insight that did not apply to the task contributed nothing.
        skipped = {e.insight_id for e in by_op.get("NOT_APPLICABLE", [])}
        retrieved_ids = (
            [r.id for r in task.retrieved if r.id not in skipped]
            if task.status == "resolved"
            else []
        )
        revisions = by_op.get("REVISE", [])
        texts = [e.revised_text or "" for e in revisions]
        if plan.add.decision and plan.add.text:
            texts.append(plan.add.text)
        vectors = self.parts.embedder.embed(texts) if texts else []
        created: list[str] = []
        for edit, vector in zip(revisions, vectors, strict=False):
            new_id = stable_id("ins", task.task_id, "revise", edit.insight_id)
            store.write(
                "insights/apply_revise",
                {
                    **common,
                    "old_id": edit.insight_id,
                    "id": new_id,
                    "text": edit.revised_text,
                    "embedding": vector,
                    "reason": edit.reason,
                    "created_edit_id": stable_id("edit", task.task_id, new_id, "CREATE_REVISION"),
                    "archived_edit_id": stable_id("edit", task.task_id, edit.insight_id, "REVISE"),
                    "context": _context(retrieved_ids, new_id, task.task_id),
                },
            )
            created.append(new_id)
        archives = [_edit_row(task.task_id, e) for e in by_op.get("ARCHIVE", [])]
        if archives:
            store.write("insights/apply_archive", {**common, "rows": archives})
        if plan.add.decision and plan.add.text:
            new_id = stable_id("ins", task.task_id, "add")
            store.write(
                "insights/create_insight",
                {
                    **common,
                    "id": new_id,
                    "text": plan.add.text,
                    "embedding": vectors[-1],
                    "origin": "controller",
                    "reason": plan.add.reason,
                    "edit_id": stable_id("edit", task.task_id, new_id, "ADD"),
                    "evidence": [task.task_id],
                    "context": _context(retrieved_ids, new_id, task.task_id),
                },
            )
            created.append(new_id)
        archived = tuple(e.insight_id for e in [*revisions, *by_op.get("ARCHIVE", [])])
        return tuple(created), archived


def _recorded(task: ControllerInput) -> str | None:
    if task.task_key is not None:  # as it was recorded
        return task.task_key or None
    return recorded_key(task.query, task.status == "resolved", [s.action for s in task.steps])


def _edit_row(task_id: str, edit: EditDecision) -> dict[str, Any]:
    return {
        "insight_id": edit.insight_id,
        "edit_id": stable_id("edit", task_id, edit.insight_id, edit.operation),
        "reason": edit.reason,
    }


def _context(retrieved_ids: Sequence[str], new_id: str, task_id: str) -> list[dict[str, str]]:
    return [
        {"insight_id": a, "id": stable_id("ctx", a, new_id, task_id)}
        for a in retrieved_ids
        if a != new_id
    ]
