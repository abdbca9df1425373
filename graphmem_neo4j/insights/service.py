"""The insights layer's service: the only code that writes its part of the graph.

EvoGraph-Mem (§3): tasks are recorded into the query graph with what retrieval returned for
them; after a task, the graph controller keeps, archives or revises those insights and may add
one; every edit leaves an audit record. A thin composition of the layer's modules, one concern
each: retrieval (retrieval.py), recording (recording.py), the controller against the graph
(judging.py) and reading (reading.py); each takes only the parts of the host it needs (deps.py).

Every write is one idempotent statement (MERGE on ids derived from the task), ordered so that
a reader never sees half a change: a task becomes retrievable only in its last statement, the
controller's plan is stored before any edit is applied, and a revision writes its successor
and archives the old node in the same statement.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from .deps import Parts
from .judging import Judge
from .models import (
    FULL_CONTROLLER,
    FeedbackResult,
    Insight,
    InsightHistory,
    RecordedTask,
    RecordSummary,
    Retrieval,
    RetrievalParams,
    TaskRecord,
    TaskView,
)
from .reading import Reader
from .recording import Recorder
from .retrieval import Retriever


class InsightService:
    def __init__(self, parts: Parts) -> None:
        self._retriever = Retriever(parts)
        self._recorder = Recorder(parts, self._retriever)
        self._judge = Judge(parts, self._retriever.goals)
        self._reader = Reader(parts)

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

        def judge(task_id: str, space: str) -> FeedbackResult:
            return self._judge.feedback_locked(task_id, space, False, allowed, requested_by)

        return self._recorder.record_tasks(
            tasks,
            space=space,
            params=params or RetrievalParams(),
            source=source,
            lines=lines,
            on_progress=on_progress,
            judge=judge if learn else None,
        )

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

    # --- retrieval (§3.3) ------------------------------------------------------------------
    def retrieve(
        self,
        query: str,
        *,
        space: str,
        params: RetrievalParams | None = None,
        task_type: str | None = None,
    ) -> Retrieval:
        """Top-B insights for a new query: top-k similar queries of its task structure
        (eq. 2) plus their neighbours of that structure (eq. 3-4), active insights with
        positive evidence among them (eq. 7), ranked by r = s − λc (eq. 8-10). `task_type`:
        the caller's name for the kind of task, which is then its structure."""
        return self._retriever.retrieve(query, space=space, params=params, task_type=task_type)

    def retrieve_by_vector(
        self,
        vector: Sequence[float],
        *,
        space: str,
        params: RetrievalParams | None = None,
        exclude: Sequence[str] = (),
        query: str | None = None,
        task_type: str | None = None,
    ) -> Retrieval:
        """`retrieve` for a query already embedded with the graph's model; give its text as
        `query` (or its `task_type`) so that its task structure is used too (without either,
        sentence similarity alone decides)."""
        return self._retriever.retrieve_by_vector(
            vector, space=space, params=params, exclude=exclude, query=query, task_type=task_type
        )

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
        return self._judge.feedback(
            task_id, space=space, dry_run=dry_run, allowed=allowed, requested_by=requested_by
        )

    def pending_feedback(self, *, space: str, limit: int = 100_000) -> list[str]:
        """Ids of recorded tasks whose feedback has not been applied, oldest first."""
        return self._judge.pending(space=space, limit=limit)

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
        return self._reader.add_insight(
            text, space=space, evidence=evidence, actor=actor, reason=reason
        )

    def get_insight(self, insight_id: str, *, space: str) -> Insight:
        return self._reader.get_insight(insight_id, space=space)

    def list_insights(
        self, *, space: str, include_archived: bool = False, limit: int = 1000
    ) -> list[Insight]:
        return self._reader.list_insights(
            space=space, include_archived=include_archived, limit=limit
        )

    def history(self, insight_id: str, *, space: str) -> InsightHistory:
        """The insight, its revision lineage, and every audited edit along it, oldest first."""
        return self._reader.history(insight_id, space=space)

    def get_task(self, task_id: str, *, space: str) -> TaskView:
        return self._reader.get_task(task_id, space=space)
