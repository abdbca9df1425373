"""Recording finished tasks into the query graph (EvoGraph-Mem §3.1-3.2).

Each task is retrieved for first (against the tasks recorded before it; what retrieval returned
is stored with the task as `RETRIEVED` edges, for the controller to judge), then stored with
its steps, and made retrievable last: its embedding and its similarity edges to the nearest
earlier queries of its task structure are written in one statement.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

from ..errors import InputError
from ..schema import now_ms
from ..store.write_lock import exclusive_space
from ..task_similarity import recorded_key, task_key
from .deps import Parts
from .models import (
    FeedbackResult,
    InsightCandidate,
    RecordedTask,
    RecordSummary,
    RetrievalParams,
    SimilarQuery,
    TaskRecord,
    within_margin,
)
from .parsing import validate_task
from .retrieval import Retriever, kind_is_learnt

Judge = Callable[[str, str], FeedbackResult]
"""judge(task_id, space): the controller, run under the space's writer lock."""


class Recorder:
    def __init__(self, parts: Parts, retriever: Retriever) -> None:
        self.parts = parts
        self.retriever = retriever

    def record_tasks(
        self,
        tasks: Iterable[TaskRecord],
        *,
        space: str,
        params: RetrievalParams,
        source: str | None = None,
        lines: Mapping[str, int] | None = None,
        on_progress: Callable[[int], None] | None = None,
        judge: Judge | None = None,
    ) -> RecordSummary:
        checked = _unique([validate_task(t) for t in tasks], source, lines)
        self.parts.ensure_space(space)
        self._refuse_conflicts(checked, space, source, lines)
        results: list[RecordedTask] = []
        batch = 64
        for start in range(0, len(checked), batch):
            chunk = checked[start : start + batch]
            vectors = self.parts.embedder.embed([t.query for t in chunk])
            for task, vector in zip(chunk, vectors, strict=True):
                # one task at a time in the space: its retrieval, record and judgement see
                # every earlier task, whichever process recorded it
                with exclusive_space(self.parts.store, space):
                    done = self._record_one(task, vector, space, params)
                    if judge is not None:
                        done = replace(done, feedback=judge(task.id, space))
                results.append(done)
                if on_progress is not None:
                    on_progress(1)
        recorded = sum(1 for r in results if r.outcome == "recorded")
        return RecordSummary(space, recorded, len(results) - recorded, tuple(results))

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
            rows = self.parts.store.read("insights/task_hashes", {"space": space, "ids": ids})
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
        store = self.parts.store
        rows = store.read("insights/get_task", {"space": space, "id": task.id})
        state = rows[0] if rows else None
        if state is not None and state["recorded_at"] is not None:
            return RecordedTask(task.id, "unchanged", self.stored_retrieval(task.id, space), ())
        exclude = [task.id]
        reader = self.parts.structures(space, "insights", fresh=True)
        # all the agent had before it acted: the goal
        key = task_key(task.query, reader, task.task_type)
        actions = [s.action for s in task.steps]
        learnt_kind = kind_is_learnt(params, reader, task.task_type)
        done = recorded_key(task.query, task.status == "resolved", actions, reader, task.task_type)
        nearest = self.retriever.nearest(
            vector,
            space,
            max(params.k, params.neighbours),
            exclude,
            key,
            text=task.query,
            params=params,
            fresh=True,
            strict=bool(task.task_type),
        )
        if state is None:
            seeds = self.retriever.seeds(nearest[: params.k], space, params, task.query)
            retrieval = self.retriever.rank(seeds, space, params, exclude, key, learnt=learnt_kind)
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
                    # what similar tasks are found by from now on: what the task did, when it
                    # was resolved; "" = no structure, unlike a query stored before keys
                    "task_key": done or "",
                    "task_type": task.task_type,
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
            retrieved = self.stored_retrieval(task.id, space)
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
            batch_size=self.parts.settings.batch_size,
            params={"space": space, "query_id": task.id},
        )
        # its similarity edges join it to tasks of what it did, the words its own actions use
        # as arguments weighing nothing (lexical.py)
        index = self.retriever.goals.index(store, space)
        learnt = index.add_arguments(actions)
        if done != key or (learnt and params.lexical_weight > 0):
            nearest = self.retriever.nearest(
                vector,
                space,
                params.neighbours,
                exclude,
                done,
                text=task.query,
                params=params,
                strict=bool(task.task_type),
            )
        # ranked (and the margin taken) by the fused similarity, which edge_min_similarity
        # bounds where the task's kind is learnt, not told (no task_type, no domain pack);
        # drawn and stored with the cosine, which neighbour_min_similarity bounds
        fused_floor = params.edge_min_similarity if learnt_kind else -1.0
        similar = [
            SimilarQuery(q.id, q.cosine)
            for q in within_margin(nearest[: params.neighbours], params.seed_margin)
            if q.cosine >= params.neighbour_min_similarity and q.similarity >= fused_floor
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

    def stored_retrieval(self, task_id: str, space: str) -> tuple[InsightCandidate, ...]:
        rows = self.parts.store.read(
            "insights/task_retrieved", {"space": space, "id": task_id, "evidence_limit": 0}
        )
        return tuple(
            InsightCandidate(
                r["id"], r["text"], float(r["score"]), int(r["positive"]), int(r["negative"])
            )
            for r in rows
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
