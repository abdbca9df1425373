"""The experience layer's service: the only code that writes its part of the graph.

add      trajectories → Task / Trajectory / Action nodes and NEXT_ACTION edges (§4.1), then the
         insights of every task the add touched (§4.2.1) and its cross-task edges (§4.2.2)
diff     exploration vs expert: common subgraph and graph edit path (Algorithms 2 and 3)
retrieve top-K tasks by embedding + top-T edges around them, as guidance text (§4.3)
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..deps import Parts
from ..errors import InputError, NotFound
from ..schema import now_ms
from ..store.write_lock import exclusive_space
from .diff import diff_graphs
from .graph import trajectory_graph
from .learn import Learner, ProgressFn
from .models import KINDS, AddReport, GraphDiff, Guidance, Kind, RetrievedTask, Trajectory
from .normalize import names_of, task_roles
from .parsing import Format, parse_file, validate_trajectory
from .retrieval import combine, embedding_texts, rank_edges, render_guidance
from .rows import (
    action_rows_of,
    content_hash,
    edge_rows_of,
    task_id,
    trajectory_from_row,
    trajectory_row,
)

__all__ = ["ExperienceService", "ProgressFn", "content_hash", "task_id"]


class ExperienceService:
    def __init__(self, parts: Parts) -> None:
        self.parts = parts
        self.learner = Learner(parts)

    # --- adding ----------------------------------------------------------------------------
    def add_file(
        self,
        path: Path,
        *,
        kind: Kind,
        fmt: Format = "auto",
        space: str | None = None,
        on_progress: ProgressFn | None = None,
    ) -> AddReport:
        """Parse a whole file (nothing is stored if any line is bad), then `add` it."""
        return self.add(parse_file(path, kind=kind, fmt=fmt), space=space, on_progress=on_progress)

    def add(
        self,
        trajectories: Iterable[Trajectory],
        *,
        space: str | None = None,
        on_progress: ProgressFn | None = None,
    ) -> AddReport:
        """Store trajectories and rebuild the insights they affect. Idempotent: a trajectory
        already stored with the same content is skipped; with other content it is replaced."""
        started = time.perf_counter()
        batch = [validate_trajectory(t) for t in trajectories]
        seen: set[str] = set()
        for t in batch:
            if t.stored_id in seen:
                raise InputError(f"{t.kind} trajectory {t.id!r} appears twice", field="id")
            seen.add(t.stored_id)
        name = self.parts.ensure_space(space or self.parts.defaults.space)
        with exclusive_space(self.parts.store, name):
            return self._add(batch, name, started, on_progress)

    def _add(
        self,
        batch: list[Trajectory],
        name: str,
        started: float,
        on_progress: ProgressFn | None,
    ) -> AddReport:
        """`add` under the space's writer lock: what is stored is read, decided on and written
        with no other writer of the space in between (a concurrent add of the same runs would
        otherwise redo them as replacements and drop cross-task edges the first one made)."""
        store = self.parts.store
        progress = on_progress or (lambda phase, n, total: None)
        seen = {t.stored_id for t in batch}

        stored = {
            row["id"]: row
            for row in store.read(
                "experience/existing_trajectories", {"space": name, "ids": sorted(seen)}
            )
        }
        changed = [
            t for t in batch if stored.get(t.stored_id, {}).get("content_hash") != content_hash(t)
        ]
        replaced = [t.stored_id for t in changed if t.stored_id in stored]
        affected = {task_id(t.task) for t in changed}
        affected |= {stored[i]["task_id"] for i in replaced if stored[i].get("task_id")}
        counts = {"actions": 0, "edges": 0, "pairs": 0, "similar": 0}
        if changed:
            vectors = self._store(name, changed, replaced, counts, progress)
            counts["pairs"] = self.learner.refresh_tasks(name, sorted(affected), progress)
            store.write("experience/delete_empty_tasks", {"space": name, "ids": sorted(affected)})
            counts["similar"] = self.learner.link_similar(name, vectors, progress)
            # Last: the content hash marks a run as done. A run interrupted before this line
            # (engine or LLM failure) is redone from scratch by the next add.
            hashes = [{"id": t.stored_id, "content_hash": content_hash(t)} for t in changed]
            store.write_batches(
                "experience/set_content_hashes",
                hashes,
                batch_size=self.parts.defaults.batch_size,
                params={"space": name},
            )
        return AddReport(
            space=name,
            trajectories=len(batch),
            added=len(changed) - len(replaced),
            unchanged=len(batch) - len(changed),
            replaced=len(replaced),
            tasks=len({task_id(t.task) for t in batch}),
            actions=counts["actions"],
            edges=counts["edges"],
            matched_pairs=counts["pairs"],
            similar_edges=counts["similar"],
            seconds=round(time.perf_counter() - started, 3),
        )

    def _store(
        self,
        space: str,
        changed: list[Trajectory],
        replaced: list[str],
        counts: dict[str, int],
        progress: ProgressFn,
    ) -> dict[str, list[float]]:
        """Write tasks (with embeddings), trajectories and their decision graphs. Returns the
        new task vectors, which the cross-task step searches with."""
        store, batch = self.parts.store, self.parts.defaults.batch_size
        params = {"space": space, "now": now_ms()}
        by_task: dict[str, list[Trajectory]] = defaultdict(list)
        for t in changed:
            by_task[task_id(t.task)].append(t)
        known = {
            row["id"]: row
            for row in store.read("experience/get_tasks", {"space": space, "ids": sorted(by_task)})
        }
        task_rows: list[dict[str, Any]] = []
        texts: list[str] = []
        for tid, runs in sorted(by_task.items()):
            names = set(known.get(tid, {}).get("names") or [])
            for run in runs:
                names |= names_of(run.steps, run.initial_observation)
            text, skeleton_text = embedding_texts(runs[0].task, names)
            texts += [text, skeleton_text]
            task_rows.append({"id": tid, "text": text, "names": sorted(names)})
        embedded = self.parts.embedder.embed(texts)
        vectors: dict[str, list[float]] = {}
        for i, row in enumerate(task_rows):
            row["embedding"] = vectors[row["id"]] = combine(embedded[2 * i], embedded[2 * i + 1])

        if replaced:
            store.write("experience/delete_actions", {"space": space, "ids": replaced})
            store.write("experience/unlink_trajectories", {"space": space, "ids": replaced})
        store.write_batches("experience/upsert_tasks", task_rows, batch_size=batch, params=params)
        trajectory_rows, action_rows, edge_rows = [], [], []
        for t in changed:
            trajectory_rows.append(trajectory_row(t))
            graph = trajectory_graph(t)
            action_rows += action_rows_of(t.stored_id, graph)
            edge_rows += edge_rows_of(t.stored_id, graph)
        store.write_batches(
            "experience/upsert_trajectories",
            trajectory_rows,
            batch_size=batch,
            params=params,
            on_batch=lambda n: progress("storing", n, len(changed)),
        )
        store.write_batches(
            "experience/upsert_actions", action_rows, batch_size=batch, params=params
        )
        store.write_batches(
            "experience/upsert_next_actions", edge_rows, batch_size=batch, params=params
        )
        counts["actions"], counts["edges"] = len(action_rows), len(edge_rows)
        return vectors

    # --- reading ---------------------------------------------------------------------------
    def trajectory(self, ident: str, *, kind: Kind, space: str | None = None) -> Trajectory:
        """A stored trajectory, by the id it was added with (or its stored `<kind>:<id>`)."""
        name = self.parts.require_space(space or self.parts.defaults.space)
        stored = ident if ident.startswith(tuple(f"{k}:" for k in KINDS)) else f"{kind}:{ident}"
        rows = self.parts.store.read(
            "experience/get_trajectories", {"space": name, "ids": [stored]}
        )
        if not rows:
            raise NotFound(f"no {kind} trajectory {ident!r} in space {name!r}")
        return trajectory_from_row(rows[0])

    def diff(
        self,
        exploration: Trajectory | str,
        expert: Trajectory | str,
        *,
        space: str | None = None,
    ) -> GraphDiff:
        """Common subgraph and edit path of an exploration run against an expert run; either
        may be a Trajectory or the id of a stored one."""
        if isinstance(exploration, str):
            exploration = self.trajectory(exploration, kind="exploration", space=space)
        if isinstance(expert, str):
            expert = self.trajectory(expert, kind="expert", space=space)
        return diff_graphs(trajectory_graph(exploration), trajectory_graph(expert))

    def vocabulary(self, space: str) -> list[str]:
        """The kinds of things the space's trajectories touch: the names a task text's
        skeleton blanks out."""
        rows = self.parts.store.read("experience/name_vocabulary", {"space": space})
        return [row["name"] for row in rows]

    def query_texts(
        self, task: str, *, space: str | None = None, vocabulary: Sequence[str] | None = None
    ) -> tuple[str, str]:
        """The two texts `retrieve` embeds for a task (recall embeds them together with its
        query's probes, in its second model call)."""
        if vocabulary is None:
            vocabulary = self.vocabulary(space or self.parts.defaults.space)
        return embedding_texts(task, vocabulary)

    def retrieve(
        self,
        task: str,
        *,
        space: str | None = None,
        k: int = 3,
        t: int = 3,
        vocabulary: Sequence[str] | None = None,
        task_type: str | None = None,
    ) -> Guidance:
        """§4.3: the top-K tasks by embedding similarity with their insights, and the top-T
        cross-task edges around them, rendered as guidance for an agent's prompt.
        `vocabulary`: the space's names, when the caller has just read them; `task_type`: the
        caller's name for the kind of task, which only tasks read as that kind match."""
        if not isinstance(task, str) or not task.strip():
            raise InputError("the task text must not be empty", field="task")
        if k < 1 or t < 0:
            raise InputError("need k ≥ 1 and t ≥ 0", field="k" if k < 1 else "t")
        name = self.parts.require_space(space or self.parts.defaults.space)
        self.parts.ensure_embedder_matches()
        store = self.parts.store
        names = list(vocabulary) if vocabulary is not None else self.vocabulary(name)
        text, skeleton_text = embedding_texts(task, names)
        vector = combine(*self.parts.embedder.embed([text, skeleton_text]))
        nearest = self.learner.nearest(
            name, vector, k, [], task=task, task_type=task_type, rescore=False
        )
        ids = [row["id"] for row in nearest]
        lessons = {
            row["id"]: row
            for row in (
                store.read("experience/get_tasks", {"space": name, "ids": ids}) if ids else []
            )
        }
        tasks = tuple(retrieved_task(row, lessons.get(row["id"], {})) for row in nearest)
        edge_rows = store.read(
            "experience/task_edges", {"space": name, "ids": [x.id for x in tasks]}
        )
        edges = tuple(rank_edges({x.id: x.score for x in tasks}, edge_rows, t))
        roles = task_roles(task, names)
        return Guidance(task, tasks, edges, roles, render_guidance(task, tasks, edges, roles))


def retrieved_task(hit: Mapping[str, Any], lessons: Mapping[str, Any]) -> RetrievedTask:
    """A task the index found, with what get_tasks read of it."""
    return RetrievedTask(
        id=hit["id"],
        text=hit["text"],
        score=float(hit["similarity"]),
        insights=tuple(lessons.get("insights") or ()),
        workflow=tuple(lessons.get("workflow") or ()),
        trajectories=int(lessons.get("trajectories") or 0),
    )
