"""The insights layer's service: the only code that writes its part of the graph.

EvoGraph-Mem (§3): tasks are recorded into the query graph with what retrieval returned for
them; after a task, the graph controller keeps, archives or revises those insights and may add
one; every edit leaves an audit record.

Every write is one idempotent statement (MERGE on ids derived from the task), ordered so that
a reader never sees half a change: a task becomes retrievable only in its last statement, the
controller's plan is stored before any edit is applied, and a revision writes its successor
and archives the old node in the same statement.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..errors import InputError, LLMError, NotFound
from ..nearest import nearest_one
from ..schema import now_ms
from ..store.write_lock import exclusive_space
from .controller import llm_plan, restrict
from .models import (
    FULL_CONTROLLER,
    AddDecision,
    ControllerInput,
    ControllerPlan,
    EditDecision,
    EditRecord,
    FeedbackResult,
    Insight,
    InsightCandidate,
    InsightHistory,
    RecordedTask,
    RecordSummary,
    Retrieval,
    RetrievalParams,
    RetrievedInsight,
    SimilarQuery,
    Step,
    TaskRecord,
    TaskView,
    stable_id,
)
from .parsing import check_id, check_text, validate_task
from .rules import COVER_SIMILARITY, OFFLINE, offline_plan, templated_insight

if TYPE_CHECKING:
    from ..memory import GraphMemory

EVIDENCE_LIMIT = 200
"""Query texts of each evidence kind handed to the controller per insight."""


class InsightService:
    def __init__(self, memory: GraphMemory) -> None:
        self.memory = memory

    # --- recording tasks -------------------------------------------------------------------
    def record_tasks(
        self,
        tasks: Iterable[TaskRecord],
        *,
        space: str,
        params: RetrievalParams | None = None,
        source: str | None = None,
        lines: Mapping[str, int] | None = None,
        on_progress: Callable[[int], None] | None = None,
        learn: bool = False,
        allowed: frozenset[str] = FULL_CONTROLLER,
        requested_by: str = "api",
    ) -> RecordSummary:
        """Record finished tasks in order: each is retrieved for (against the tasks before it),
        stored with what was retrieved, and linked to its nearest earlier queries.

        With `learn`, the controller judges each task right after it is recorded (the online
        loop of §3: the next task already sees the edits); otherwise call `feedback` later.
        Every task is checked before anything is written; a task id already stored with other
        content is refused. Re-recording an unchanged task is a no-op.
        """
        params = params or RetrievalParams()
        checked = _unique([validate_task(t) for t in tasks], source, lines)
        self.memory.ensure_space(space)
        self._refuse_conflicts(checked, space, source, lines)
        results: list[RecordedTask] = []
        batch = 64
        for start in range(0, len(checked), batch):
            chunk = checked[start : start + batch]
            vectors = self.memory.embedder.embed([t.query for t in chunk])
            for task, vector in zip(chunk, vectors, strict=True):
                # one task at a time in the space: its retrieval, record and judgement see
                # every earlier task, whichever process recorded it
                with exclusive_space(self.memory.store, space):
                    done = self._record_one(task, vector, space, params)
                    if learn:
                        judged = self.feedback(
                            task.id, space=space, allowed=allowed, requested_by=requested_by
                        )
                        done = replace(done, feedback=judged)
                results.append(done)
                if on_progress is not None:
                    on_progress(1)
        recorded = sum(1 for r in results if r.outcome == "recorded")
        return RecordSummary(space, recorded, len(results) - recorded, tuple(results))

    def record_task(
        self,
        task: TaskRecord,
        *,
        space: str,
        params: RetrievalParams | None = None,
        learn: bool = False,
        requested_by: str = "api",
    ) -> RecordedTask:
        """One task; see record_tasks."""
        summary = self.record_tasks(
            [task], space=space, params=params, learn=learn, requested_by=requested_by
        )
        return summary.tasks[0]

    def _refuse_conflicts(
        self,
        tasks: Sequence[TaskRecord],
        space: str,
        source: str | None,
        lines: Mapping[str, int] | None,
    ) -> None:
        stored: dict[str, str] = {}
        for start in range(0, len(tasks), 1000):
            ids = [t.id for t in tasks[start : start + 1000]]
            rows = self.memory.store.read("insights/task_hashes", {"space": space, "ids": ids})
            stored.update((r["id"], r["content_hash"]) for r in rows)
        for task in tasks:
            if task.id in stored and stored[task.id] != task.content_hash():
                raise InputError(
                    f"task {task.id!r} is already recorded in space {space!r} with other "
                    "content; give the new task another id",
                    source=source,
                    line=(lines or {}).get(task.id),
                    field="id",
                )

    def _record_one(
        self, task: TaskRecord, vector: list[float], space: str, params: RetrievalParams
    ) -> RecordedTask:
        store = self.memory.store
        rows = store.read("insights/get_task", {"space": space, "id": task.id})
        state = rows[0] if rows else None
        if state is not None and state["recorded_at"] is not None:
            return RecordedTask(task.id, "unchanged", self._stored_retrieval(task.id, space), ())
        exclude = [task.id]
        nearest = self._nearest(vector, space, max(params.k, params.neighbours), params, exclude)
        if state is None:
            retrieval = self._rank(nearest[: params.k], space, params, exclude)
            store.write(
                "insights/write_task",
                {
                    "space": space,
                    "id": task.id,
                    "query": task.query,
                    "status": task.status,
                    "answer": task.answer,
                    "feedback": task.feedback,
                    "content_hash": task.content_hash(),
                    "step_count": len(task.steps),
                    "k": params.k,
                    "b": params.b,
                    "lambda": params.lam,
                    "now": now_ms(),
                    "retrieved": [
                        {
                            "id": c.id,
                            "rank": rank,
                            "score": c.score,
                            "positive": c.positive,
                            "negative": c.negative,
                        }
                        for rank, c in enumerate(retrieval.insights, start=1)
                    ],
                },
            )
            retrieved = retrieval.insights
        else:
            # An earlier run stopped half-way: its retrieval was stored with the task; finish.
            retrieved = self._stored_retrieval(task.id, space)
        step_rows = [
            {
                "id": f"{task.id}#{n}",
                "position": n,
                "role": s.role,
                "action": s.action,
                "observation": s.observation,
                "previous": f"{task.id}#{n - 1}" if n > 0 else None,
            }
            for n, s in enumerate(task.steps)
        ]
        store.write_batches(
            "insights/write_steps",
            step_rows,
            batch_size=self.memory.settings.batch_size,
            params={"space": space, "query_id": task.id},
        )
        similar = [
            q
            for q in nearest[: params.neighbours]
            if q.similarity >= params.neighbour_min_similarity
        ]
        store.write(
            "insights/complete_task",
            {
                "space": space,
                "id": task.id,
                "embedding": vector,
                "now": now_ms(),
                "similar": [{"id": q.id, "similarity": q.similarity} for q in similar],
            },
        )
        return RecordedTask(task.id, "recorded", retrieved, tuple(similar))

    def _stored_retrieval(self, task_id: str, space: str) -> tuple[InsightCandidate, ...]:
        rows = self.memory.store.read(
            "insights/task_retrieved", {"space": space, "id": task_id, "evidence_limit": 0}
        )
        return tuple(
            InsightCandidate(
                r["id"], r["text"], float(r["score"]), int(r["positive"]), int(r["negative"])
            )
            for r in rows
        )

    # --- retrieval (§3.3) ------------------------------------------------------------------
    def retrieve(
        self, query: str, *, space: str, params: RetrievalParams | None = None
    ) -> Retrieval:
        """Top-B insights for a new query: top-k similar queries (eq. 2) plus their neighbours
        (eq. 3-4), active insights with positive evidence among them (eq. 7), ranked by
        r = s − λc (eq. 8-10)."""
        check_text(query, field="query")
        params = params or RetrievalParams()
        self.memory.require_space(space)
        self.memory.ensure_embedder_matches()
        vector = self.memory.embedder.embed([query])[0]
        return self._rank(self._nearest(vector, space, params.k, params, []), space, params, [])

    def retrieve_by_vector(
        self,
        vector: Sequence[float],
        *,
        space: str,
        params: RetrievalParams | None = None,
        exclude: Sequence[str] = (),
    ) -> Retrieval:
        """`retrieve` for a query already embedded with the graph's model."""
        params = params or RetrievalParams()
        self.memory.require_space(space)
        self.memory.ensure_embedder_matches()
        seeds = self._nearest(list(vector), space, params.k, params, list(exclude))
        return self._rank(seeds, space, params, list(exclude))

    def _nearest(
        self,
        vector: list[float],
        space: str,
        k: int,
        params: RetrievalParams,
        exclude: list[str],
    ) -> list[SimilarQuery]:
        if k == 0:
            return []
        rows = nearest_one(
            self.memory.store,
            "insights/nearest_queries",
            vector,
            space=space,
            k=k,
            params={"exclude": exclude},
            rescore=True,  # similarities are stored on SIMILAR_* edges: the same on both engines
        )
        return [SimilarQuery(r["id"], float(r["similarity"])) for r in rows]

    def _rank(
        self,
        seeds: Sequence[SimilarQuery],
        space: str,
        params: RetrievalParams,
        exclude: list[str],
    ) -> Retrieval:
        if not seeds:
            return Retrieval((), 0, ())
        rows = self.memory.store.read(
            "insights/retrieve",
            {
                "space": space,
                "seed_ids": [s.id for s in seeds],
                "exclude": exclude,
                "lambda": float(params.lam),
                "b": params.b,
            },
        )
        insights = tuple(
            InsightCandidate(
                r["id"], r["text"], float(r["score"]), int(r["positive"]), int(r["negative"])
            )
            for r in rows
        )
        size = int(rows[0]["query_set"]) if rows else 0
        return Retrieval(tuple(seeds), size, insights)

    # --- the controller (§3.4) -------------------------------------------------------------
    def feedback(
        self,
        task_id: str,
        *,
        space: str,
        dry_run: bool = False,
        allowed: frozenset[str] = FULL_CONTROLLER,
        requested_by: str = "api",
    ) -> FeedbackResult:
        """Run the graph controller on a recorded task and apply its edits.

        It judges the insights retrieved when the task was recorded. The plan is stored before
        any edit, so a run interrupted half-way is finished, with the same edits, by the next;
        a task whose feedback was applied is not edited again. `allowed` restricts the edits
        (the ablations of §4.3).
        """
        check_id(task_id, field="task_id")
        self.memory.require_space(space)
        with exclusive_space(self.memory.store, space):
            return self._feedback(task_id, space, dry_run, allowed, requested_by)

    def _feedback(
        self,
        task_id: str,
        space: str,
        dry_run: bool,
        allowed: frozenset[str],
        requested_by: str,
    ) -> FeedbackResult:
        """`feedback` under the space's writer lock, so that two judgements cannot both find
        no insight covering a lesson and both add it."""
        row = self._task_row(task_id, space)
        task = self._controller_input(row, space)
        if row["feedback_at"] is not None:
            plan = ControllerPlan.from_json(row["plan_json"])
            return FeedbackResult(task_id, plan, applied=False, already_applied=True)
        if row["plan_json"] is not None:
            plan = ControllerPlan.from_json(row["plan_json"])
        else:
            plan = self._decide(task, space, allowed)
        if dry_run:
            return FeedbackResult(task_id, plan, applied=False, already_applied=False)
        stored = self.memory.store.write(
            "insights/save_plan",
            {"space": space, "id": task_id, "plan_json": plan.to_json(), "now": now_ms()},
        )
        plan = ControllerPlan.from_json(stored[0]["plan_json"])
        created, archived = self._apply(plan, task, space, requested_by)
        self.memory.store.write(
            "insights/finish_feedback", {"space": space, "id": task_id, "now": now_ms()}
        )
        return FeedbackResult(
            task_id, plan, applied=True, already_applied=False, created=created, archived=archived
        )

    def pending_feedback(self, *, space: str, limit: int = 100_000) -> list[str]:
        """Ids of recorded tasks whose feedback has not been applied, oldest first."""
        self.memory.require_space(space)
        rows = self.memory.store.read("insights/pending_tasks", {"space": space, "limit": limit})
        return [str(r["id"]) for r in rows]

    def _task_row(self, task_id: str, space: str) -> dict[str, Any]:
        rows = self.memory.store.read("insights/get_task", {"space": space, "id": task_id})
        if not rows or rows[0]["recorded_at"] is None:
            raise NotFound(f"no recorded task {task_id!r} in space {space!r}")
        return rows[0]

    def _controller_input(self, row: Mapping[str, Any], space: str) -> ControllerInput:
        steps = self.memory.store.read("insights/task_steps", {"space": space, "id": row["id"]})
        retrieved = self.memory.store.read(
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
                    negative_queries=tuple(r["negative_queries"]),
                )
                for r in retrieved
            ),
        )

    def _decide(self, task: ControllerInput, space: str, allowed: frozenset[str]) -> ControllerPlan:
        llm = self.memory.llm_for(space)
        if llm is not None:
            try:
                plan = restrict(llm_plan(llm, task), allowed)
            except LLMError as e:
                if self.memory.settings.llm_fallback == "error":
                    raise
                plan = self._offline(task, space, allowed)
                return replace(plan, decided_by=f"{OFFLINE} (LLM failed: {e})")
            if plan.add.decision and plan.add.text is not None:
                covered = self._covering(plan.add.text, space)
                if covered is not None:
                    add = AddDecision(
                        False,
                        reason=f"the LLM proposed {plan.add.text!r}, but active insight "
                        f"{covered} already says it",
                    )
                    plan = replace(plan, add=add)
            return plan
        return self._offline(task, space, allowed)

    def _offline(
        self, task: ControllerInput, space: str, allowed: frozenset[str]
    ) -> ControllerPlan:
        candidate = templated_insight(task.query, task.steps) if task.status == "resolved" else None
        covered = self._covering(candidate, space) if candidate is not None else None
        return offline_plan(task, candidate=candidate, covered_by=covered, allowed=allowed)

    def _covering(self, text: str, space: str) -> str | None:
        """An active insight saying nearly the same (cosine ≥ COVER_SIMILARITY), if any."""
        self.memory.ensure_embedder_matches()
        vector = self.memory.embedder.embed([text])[0]
        rows = self.memory.store.read(
            "insights/covering_insight", {"space": space, "embedding": vector}
        )
        if rows and float(rows[0]["similarity"]) >= COVER_SIMILARITY:
            return str(rows[0]["id"])
        return None

    def _apply(
        self, plan: ControllerPlan, task: ControllerInput, space: str, requested_by: str
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        store = self.memory.store
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
        for operation, query in (
            ("KEEP", "insights/apply_keep"),
            ("PENALIZE", "insights/apply_penalize"),
        ):
            rows = [self._edit_row(task.task_id, e) for e in by_op.get(operation, [])]
            if rows:
                store.write(query, {**common, "rows": rows})
        # eq. 18: new and revised insights are contextualised by every retrieved insight when
        # the task was resolved.
        retrieved_ids = [r.id for r in task.retrieved] if task.status == "resolved" else []
        revisions = by_op.get("REVISE", [])
        texts = [e.revised_text or "" for e in revisions]
        if plan.add.decision and plan.add.text:
            texts.append(plan.add.text)
        vectors = self.memory.embedder.embed(texts) if texts else []
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
        archives = [self._edit_row(task.task_id, e) for e in by_op.get("ARCHIVE", [])]
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

    @staticmethod
    def _edit_row(task_id: str, edit: EditDecision) -> dict[str, Any]:
        return {
            "insight_id": edit.insight_id,
            "edit_id": stable_id("edit", task_id, edit.insight_id, edit.operation),
            "reason": edit.reason,
        }

    # --- insights by hand, and reading -----------------------------------------------------
    def add_insight(
        self,
        text: str,
        *,
        space: str,
        evidence: Sequence[str] = (),
        actor: str = "api",
        reason: str = "added by hand",
    ) -> Insight:
        """Add an insight directly, with recorded tasks as its positive evidence (without any,
        retrieval cannot find it: eq. 7 needs positive evidence). Same text, same insight."""
        check_text(text, field="text")
        ids = [check_id(e, field="evidence") for e in evidence]
        self.memory.ensure_space(space)
        found = {
            r["id"]
            for r in self.memory.store.read("insights/recorded_tasks", {"space": space, "ids": ids})
        }
        missing = [i for i in ids if i not in found]
        if missing:
            raise NotFound(f"no recorded task {', '.join(map(repr, missing))} in space {space!r}")
        new_id = stable_id("ins", "manual", " ".join(text.split()))
        self.memory.store.write(
            "insights/create_insight",
            {
                "space": space,
                "id": new_id,
                "text": text,
                "embedding": self.memory.embedder.embed([text])[0],
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
        self.memory.require_space(space)
        rows = self.memory.store.read("insights/get_insight", {"space": space, "id": insight_id})
        if not rows:
            raise NotFound(f"no insight {insight_id!r} in space {space!r}")
        return _insight(rows[0])

    def list_insights(
        self, *, space: str, include_archived: bool = False, limit: int = 1000
    ) -> list[Insight]:
        self.memory.require_space(space)
        rows = self.memory.store.read(
            "insights/list_insights",
            {"space": space, "include_archived": include_archived, "limit": limit},
        )
        return [_insight(r) for r in rows]

    def history(self, insight_id: str, *, space: str) -> InsightHistory:
        """The insight, its revision lineage, and every audited edit along it, oldest first."""
        insight = self.get_insight(insight_id, space=space)
        lineage = self.memory.store.read("insights/lineage", {"space": space, "id": insight_id})
        ancestors = tuple(lineage[0]["ancestors"]) if lineage else ()
        successors = tuple(lineage[0]["successors"]) if lineage else ()
        ids = [*reversed(ancestors), insight_id, *successors]  # oldest version first
        rows = self.memory.store.read("insights/edits", {"space": space, "ids": ids})
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
        self.memory.require_space(space)
        row = self._task_row(task_id, space)
        task = self._controller_input(row, space)
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


def _unique(
    tasks: list[TaskRecord], source: str | None, lines: Mapping[str, int] | None
) -> list[TaskRecord]:
    """Drop exact repeats; a repeated id with other content is an error."""
    seen: dict[str, str] = {}
    kept: list[TaskRecord] = []
    for task in tasks:
        digest = task.content_hash()
        if task.id in seen:
            if seen[task.id] != digest:
                raise InputError(
                    f"task {task.id!r} is given twice with different content",
                    source=source,
                    line=(lines or {}).get(task.id),
                    field="id",
                )
            continue
        seen[task.id] = digest
        kept.append(task)
    if not kept:
        raise InputError("no tasks to record", source=source)
    return kept


def _context(retrieved_ids: Sequence[str], new_id: str, task_id: str) -> list[dict[str, str]]:
    return [
        {"insight_id": a, "id": stable_id("ctx", a, new_id, task_id)}
        for a in retrieved_ids
        if a != new_id
    ]


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
