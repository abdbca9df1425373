"""Reading the insights layer, and insights added by hand."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import NotFound
from ..schema import now_ms
from ..store import GraphStore
from .deps import Parts
from .models import (
    ControllerInput,
    ControllerPlan,
    EditRecord,
    Insight,
    InsightHistory,
    RetrievedInsight,
    Step,
    TaskView,
    stable_id,
)
from .parsing import check_id, check_text

EVIDENCE_LIMIT = 200
"""Query texts of each evidence kind handed to the controller per insight."""


def task_row(store: GraphStore, task_id: str, space: str) -> dict[str, Any]:
    rows = store.read("insights/get_task", {"space": space, "id": task_id})
    if not rows or rows[0]["recorded_at"] is None:
        raise NotFound(f"no recorded task {task_id!r} in space {space!r}")
    return rows[0]


def controller_input(store: GraphStore, row: Mapping[str, Any], space: str) -> ControllerInput:
    """A recorded task as the controller sees it: steps, outcome, and the insights retrieved
    for it, each as it is now."""
    steps = store.read("insights/task_steps", {"space": space, "id": row["id"]})
    retrieved = store.read(
        "insights/task_retrieved",
        {"space": space, "id": row["id"], "evidence_limit": EVIDENCE_LIMIT},
    )
    return ControllerInput(
        task_id=row["id"],
        query=row["query"],
        status="resolved" if row["status"] == "resolved" else "failed",
        steps=tuple(Step(s["action"], s["observation"], s["role"]) for s in steps),
        answer=row["answer"],
        feedback=row["feedback"],
        task_key=row.get("task_key"),
        retrieved=tuple(
            RetrievedInsight(
                id=r["id"],
                text=r["text"],
                active=bool(r["active"]),
                rank=int(r["rank"]),
                score=float(r["score"]),
                positive_total=int(r["positive_total"]),
                negative_total=int(r["negative_total"]),
                positive_queries=tuple(r["positive_queries"]),
                positive_keys=tuple(k[0] for k in r["positive_keys"]),
                negative_queries=tuple(r["negative_queries"]),
            )
            for r in retrieved
        ),
    )


class Reader:
    def __init__(self, parts: Parts) -> None:
        self.parts = parts

    def add_insight(
        self,
        text: str,
        *,
        space: str,
        evidence: Sequence[str] = (),
        actor: str = "api",
        reason: str = "added by hand",
    ) -> Insight:
        check_text(text, field="text")
        ids = [check_id(e, field="evidence") for e in evidence]
        self.parts.ensure_space(space)
        store = self.parts.store
        found = {
            r["id"] for r in store.read("insights/recorded_tasks", {"space": space, "ids": ids})
        }
        missing = [i for i in ids if i not in found]
        if missing:
            raise NotFound(f"no recorded task {', '.join(map(repr, missing))} in space {space!r}")
        new_id = stable_id("ins", "manual", " ".join(text.split()))
        store.write(
            "insights/create_insight",
            {
                "space": space,
                "id": new_id,
                "text": text,
                "embedding": self.parts.embedder.embed([text])[0],
                "origin": "manual",
                "query_id": None,
                "actor": actor,
                "requested_by": actor,
                "reason": reason,
                "edit_id": stable_id("edit", new_id, "ADD"),
                "evidence": ids,
                "context": [],
                "now": now_ms(),
            },
        )
        return self.get_insight(new_id, space=space)

    def get_insight(self, insight_id: str, *, space: str) -> Insight:
        check_id(insight_id, field="insight_id")
        self.parts.require_space(space)
        rows = self.parts.store.read("insights/get_insight", {"space": space, "id": insight_id})
        if not rows:
            raise NotFound(f"no insight {insight_id!r} in space {space!r}")
        return _insight(rows[0])

    def list_insights(
        self, *, space: str, include_archived: bool = False, limit: int = 1000
    ) -> list[Insight]:
        self.parts.require_space(space)
        rows = self.parts.store.read(
            "insights/list_insights",
            {"space": space, "include_archived": include_archived, "limit": limit},
        )
        return [_insight(r) for r in rows]

    def history(self, insight_id: str, *, space: str) -> InsightHistory:
        insight = self.get_insight(insight_id, space=space)
        store = self.parts.store
        lineage = store.read("insights/lineage", {"space": space, "id": insight_id})
        ancestors = tuple(lineage[0]["ancestors"]) if lineage else ()
        successors = tuple(lineage[0]["successors"]) if lineage else ()
        ids = [*reversed(ancestors), insight_id, *successors]  # oldest version first
        rows = store.read("insights/edits", {"space": space, "ids": ids})
        # Edits made in the same millisecond (a revision's two records) read in lineage order.
        position = {i: n for n, i in enumerate(ids)}
        rows.sort(key=lambda r: (int(r["at"]), position.get(r["insight_id"], 0)))
        edits = tuple(
            EditRecord(
                id=r["id"],
                insight_id=r["insight_id"],
                operation=r["operation"],
                query_id=r["query_id"],
                actor=r["actor"],
                requested_by=r["requested_by"],
                reason=r["reason"],
                at=int(r["at"]),
                related_id=r["related_id"],
            )
            for r in rows
        )
        return InsightHistory(insight, ancestors, successors, edits)

    def get_task(self, task_id: str, *, space: str) -> TaskView:
        check_id(task_id, field="task_id")
        self.parts.require_space(space)
        row = task_row(self.parts.store, task_id, space)
        task = controller_input(self.parts.store, row, space)
        return TaskView(
            id=task.task_id,
            query=task.query,
            status=task.status,
            answer=task.answer,
            feedback=task.feedback,
            recorded_at=row["recorded_at"],
            feedback_at=row["feedback_at"],
            steps=task.steps,
            retrieved=task.retrieved,
            plan=ControllerPlan.from_json(row["plan_json"]) if row["plan_json"] else None,
        )


def _insight(row: Mapping[str, Any]) -> Insight:
    return Insight(
        id=row["id"],
        text=row["text"],
        active=bool(row["active"]),
        created_at=int(row["created_at"]),
        updated_at=int(row["updated_at"]),
        archived_at=None if row["archived_at"] is None else int(row["archived_at"]),
        positive=int(row["positive"]),
        negative=int(row["negative"]),
    )
