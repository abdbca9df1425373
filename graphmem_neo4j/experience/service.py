"""The experience layer's service: the only code that writes its part of the graph.

add      trajectories → Task / Trajectory / Action nodes and NEXT_ACTION edges (§4.1), then the
         insights of every task the add touched (§4.2.1) and its cross-task edges (§4.2.2)
diff     exploration vs expert: common subgraph and graph edit path (Algorithms 2 and 3)
retrieve top-K tasks by embedding + top-T edges around them, as guidance text (§4.3)
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError, LLMError, NotFound
from ..nearest import nearest_one
from ..schema import now_ms
from ..store.write_lock import exclusive_space
from ..task_similarity import similar_tasks, task_key
from .diff import diff_graphs
from .graph import abstract_graph, trajectory_graph
from .insights import (
    ComparedPair,
    llm_cross_insight,
    llm_task_insights,
    template_cross_insight,
    template_task_insights,
)
from .models import (
    KINDS,
    AddReport,
    CommonEdge,
    CrossTaskInsight,
    DecisionGraph,
    GraphDiff,
    Guidance,
    Kind,
    RetrievedTask,
    Step,
    TaskInsights,
    Trajectory,
)
from .normalize import names_of, normalize_task, task_roles
from .parsing import Format, parse_file, validate_trajectory
from .retrieval import combine, embedding_texts, rank_edges, render_guidance

if TYPE_CHECKING:
    from ..memory import GraphMemory

OVERFETCH = 8
"""Nearest tasks asked for per task kept, before those of another structure are dropped."""
OVERFETCH_MAX = 512
"""The second, wider request when the first held too few tasks of the structure."""

ProgressFn = Callable[[str, int, int], None]
"""on_progress(phase, advance, total): phases are 'storing', 'insights', 'cross-task'."""


def task_id(task: str) -> str:
    """Tasks are keyed on their normalised text."""
    return "task-" + hashlib.sha256(normalize_task(task).encode()).hexdigest()[:16]


def content_hash(t: Trajectory) -> str:
    body = [
        t.task,
        t.kind,
        t.reward,
        t.initial_observation,
        [[s.action, s.observation] for s in t.steps],
        t.metadata,
    ]
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()


def _best_expert(experts: Sequence[Trajectory]) -> Trajectory | None:
    """The task's representative expert run: highest reward, then shortest."""
    return min(experts, key=lambda t: (-t.reward, len(t.steps), t.id), default=None)


class ExperienceService:
    neighbours: int = 3
    """Cross-task edges per task: its nearest tasks with an expert run (§4.2.2)."""
    min_similarity: float = 0.5
    """Below this task similarity, two tasks are not "similar" and get no edge."""

    def __init__(self, memory: GraphMemory) -> None:
        self.memory = memory

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
        name = self.memory.ensure_space(space or self.memory.settings.space)
        with exclusive_space(self.memory.store, name):
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
        store = self.memory.store
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
            counts["pairs"] = self._refresh_tasks(name, sorted(affected), progress)
            store.write("experience/delete_empty_tasks", {"space": name, "ids": sorted(affected)})
            counts["similar"] = self._link_similar(name, vectors, progress)
            # Last: the content hash marks a run as done. A run interrupted before this line
            # (engine or LLM failure) is redone from scratch by the next add.
            hashes = [{"id": t.stored_id, "content_hash": content_hash(t)} for t in changed]
            store.write_batches(
                "experience/set_content_hashes",
                hashes,
                batch_size=self.memory.settings.batch_size,
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
        store, batch = self.memory.store, self.memory.settings.batch_size
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
        embedded = self.memory.embedder.embed(texts)
        vectors: dict[str, list[float]] = {}
        for i, row in enumerate(task_rows):
            row["embedding"] = vectors[row["id"]] = combine(embedded[2 * i], embedded[2 * i + 1])

        if replaced:
            store.write("experience/delete_actions", {"space": space, "ids": replaced})
            store.write("experience/unlink_trajectories", {"space": space, "ids": replaced})
        store.write_batches("experience/upsert_tasks", task_rows, batch_size=batch, params=params)
        trajectory_rows, action_rows, edge_rows = [], [], []
        for t in changed:
            trajectory_rows.append(_trajectory_row(t))
            graph = trajectory_graph(t)
            action_rows += _action_rows(t.stored_id, graph)
            edge_rows += _edge_rows(t.stored_id, graph)
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

    def _load_runs(self, space: str, task_ids: Sequence[str]) -> dict[str, list[Trajectory]]:
        rows = self.memory.store.read(
            "experience/task_trajectories", {"space": space, "ids": list(task_ids)}
        )
        runs: dict[str, list[Trajectory]] = defaultdict(list)
        for row in rows:
            runs[row["task_id"]].append(_trajectory_from_row(row))
        return runs

    def _refresh_tasks(self, space: str, task_ids: Sequence[str], progress: ProgressFn) -> int:
        """Intra-task insights (§4.2.1): each exploration run is matched against the task's
        expert run closest to it; the edit paths and common subgraphs become the insights."""
        runs = self._load_runs(space, task_ids)
        task_rows, match_rows = [], []
        for tid in task_ids:
            progress("insights", 1, len(task_ids))
            trajectories = runs.get(tid, [])
            if not trajectories:
                continue
            experts = [t for t in trajectories if t.kind == "expert"]
            explorations = [t for t in trajectories if t.kind == "exploration"]
            pairs = [self._compare(x, experts) for x in explorations] if experts else []
            insights = self._task_insights(_best_expert(experts), pairs, explorations)
            task_rows.append(
                {
                    "id": tid,
                    "insights": list(insights.insights),
                    "workflow": list(insights.workflow),
                    "source": insights.source,
                    "has_expert": bool(experts),
                    "trajectories": len(trajectories),
                }
            )
            match_rows += [_match_row(pair) for pair in pairs]
        store, batch = self.memory.store, self.memory.settings.batch_size
        params = {"space": space, "now": now_ms()}
        store.write_batches(
            "experience/set_task_insights", task_rows, batch_size=batch, params=params
        )
        store.write_batches(
            "experience/upsert_matches", match_rows, batch_size=batch, params=params
        )
        store.write_batches("experience/prune_matches", match_rows, batch_size=batch, params=params)
        return len(match_rows)

    @staticmethod
    def _compare(exploration: Trajectory, experts: Sequence[Trajectory]) -> ComparedPair:
        """Pair an exploration with the expert run of its task that it is closest to (the
        paper pairs runs of one game; a task text may cover several games)."""
        graph = trajectory_graph(exploration)
        best: tuple[float, str, Trajectory, GraphDiff] | None = None
        for expert in experts:
            diff = diff_graphs(graph, trajectory_graph(expert))
            candidate = (diff.cost, expert.id, expert, diff)
            if best is None or candidate[:2] < best[:2]:
                best = candidate
        assert best is not None
        return ComparedPair(exploration, graph, best[2], best[3])

    def _task_insights(
        self,
        expert: Trajectory | None,
        pairs: Sequence[ComparedPair],
        explorations: Sequence[Trajectory],
    ) -> TaskInsights:
        fallback = template_task_insights(expert, pairs, explorations)
        llm = self.memory.llm
        if llm is None or not (pairs or expert):
            return fallback
        task = (expert or explorations[0]).task
        try:
            return llm_task_insights(llm, task, expert, pairs)
        except LLMError:
            if self.memory.settings.llm_fallback == "offline":
                return fallback
            raise

    def _cross_insight(self, a: str, b: str, common: Sequence[CommonEdge]) -> CrossTaskInsight:
        llm = self.memory.llm
        if llm is None:
            return template_cross_insight(a, b, common)
        try:
            return llm_cross_insight(llm, a, b, common)
        except LLMError:
            if self.memory.settings.llm_fallback == "offline":
                return template_cross_insight(a, b, common)
            raise

    def _link_similar(
        self, space: str, vectors: dict[str, list[float]], progress: ProgressFn
    ) -> int:
        """Cross-task insights (§4.2.2): each new task with an expert run is linked to its
        nearest tasks with one; their expert graphs, on abstract labels, are matched and the
        common subgraph is the shared workflow on the edge."""
        store = self.memory.store
        rows = store.read("experience/get_tasks", {"space": space, "ids": sorted(vectors)})
        with_expert = {row["id"] for row in rows if row.get("has_expert")}
        texts = {str(row["id"]): str(row["text"]) for row in rows}
        neighbours: dict[str, list[tuple[str, float]]] = {}
        for tid in sorted(with_expert):
            rows = self._nearest(
                space, vectors[tid], self.neighbours, [tid], experts_only=True, task=texts[tid]
            )
            neighbours[tid] = [
                (row["id"], float(row["similarity"]))
                for row in rows
                if float(row["similarity"]) >= self.min_similarity
            ]
        involved = sorted(with_expert | {n for near in neighbours.values() for n, _ in near})
        experts: dict[str, Trajectory] = {}
        for tid, runs in self._load_runs(space, involved).items():
            best = _best_expert([t for t in runs if t.kind == "expert"])
            if best is not None:
                experts[tid] = best
        graphs: dict[str, DecisionGraph] = {}
        shared: dict[frozenset[str], CrossTaskInsight] = {}
        edge_rows, prune_rows = [], []
        now = now_ms()
        for tid, near in sorted(neighbours.items()):
            progress("cross-task", 1, len(neighbours))
            keep = []
            for other, similarity in near:
                if tid not in experts or other not in experts:
                    continue
                pair = frozenset((tid, other))
                if pair not in shared:
                    for key in pair:
                        if key not in graphs:
                            graphs[key] = abstract_graph(experts[key])
                    common = diff_graphs(graphs[tid], graphs[other]).common_edges
                    shared[pair] = self._cross_insight(
                        normalize_task(experts[tid].task),
                        normalize_task(experts[other].task),
                        common,
                    )
                insight = shared[pair]
                if insight.shared_edges == 0:
                    continue
                keep.append(other)
                edge_rows.append(
                    {
                        "source": tid,
                        "target": other,
                        "props": {
                            "similarity": similarity,
                            "shared_edges": insight.shared_edges,
                            "insight": insight.insight,
                            "workflow": list(insight.workflow),
                            "insight_source": insight.source,
                            "updated_at": now,
                        },
                    }
                )
            prune_rows.append({"id": tid, "keep": keep})
        batch = self.memory.settings.batch_size
        store.write_batches(
            "experience/upsert_similar", edge_rows, batch_size=batch, params={"space": space}
        )
        store.write_batches(
            "experience/prune_similar", prune_rows, batch_size=batch, params={"space": space}
        )
        return len(edge_rows)

    def _nearest(
        self,
        space: str,
        vector: list[float],
        k: int,
        exclude: list[str],
        *,
        experts_only: bool = False,
        task: str | None = None,
    ) -> list[dict[str, Any]]:
        """The k nearest tasks; given the `task` text, only those similar to it in the sense
        shared with the insights layer (`task_similarity`: the same procedure, or either
        unknown), from an over-fetched candidate list."""

        def fetch(n: int) -> list[dict[str, Any]]:
            return nearest_one(
                self.memory.store,
                "experience/nearest_tasks",
                vector,
                space=space,
                k=n,
                params={"exclude": exclude, "experts_only": experts_only},
                rescore=True,  # similarities are stored on SIMILAR_* edges: same on both engines
            )

        if task is None:
            return fetch(k)
        key = task_key(task)
        for n in (OVERFETCH * k, OVERFETCH_MAX):  # a second, wider look when the first is short
            rows = fetch(n)
            kept = similar_tasks(key, rows, lambda r: task_key(str(r["text"])), k)
            if len(kept) >= k or len(rows) < n:
                break
        return kept

    # --- reading ---------------------------------------------------------------------------
    def trajectory(self, ident: str, *, kind: Kind, space: str | None = None) -> Trajectory:
        """A stored trajectory, by the id it was added with (or its stored `<kind>:<id>`)."""
        name = self.memory.require_space(space or self.memory.settings.space)
        stored = ident if ident.startswith(tuple(f"{k}:" for k in KINDS)) else f"{kind}:{ident}"
        rows = self.memory.store.read(
            "experience/get_trajectories", {"space": name, "ids": [stored]}
        )
        if not rows:
            raise NotFound(f"no {kind} trajectory {ident!r} in space {name!r}")
        return _trajectory_from_row(rows[0])

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

    def _vocabulary(self, space: str) -> list[str]:
        rows = self.memory.store.read("experience/name_vocabulary", {"space": space})
        return [row["name"] for row in rows]

    def query_texts(self, task: str, *, space: str | None = None) -> tuple[str, str]:
        """The two texts `retrieve` embeds for a task (recall embeds them together with its
        query, in one model call)."""
        return embedding_texts(task, self._vocabulary(space or self.memory.settings.space))

    def retrieve(self, task: str, *, space: str | None = None, k: int = 3, t: int = 3) -> Guidance:
        """§4.3: the top-K tasks by embedding similarity with their insights, and the top-T
        cross-task edges around them, rendered as guidance for an agent's prompt."""
        if not isinstance(task, str) or not task.strip():
            raise InputError("the task text must not be empty", field="task")
        if k < 1 or t < 0:
            raise InputError("need k ≥ 1 and t ≥ 0", field="k" if k < 1 else "t")
        name = self.memory.require_space(space or self.memory.settings.space)
        self.memory.ensure_embedder_matches()
        store = self.memory.store
        names = self._vocabulary(name)
        text, skeleton_text = embedding_texts(task, names)
        vector = combine(*self.memory.embedder.embed([text, skeleton_text]))
        tasks = tuple(
            RetrievedTask(
                id=row["id"],
                text=row["text"],
                score=float(row["similarity"]),
                insights=tuple(row.get("insights") or ()),
                workflow=tuple(row.get("workflow") or ()),
                trajectories=int(row.get("trajectories") or 0),
            )
            for row in self._nearest(name, vector, k, [], task=task)
        )
        edge_rows = store.read(
            "experience/task_edges", {"space": name, "ids": [x.id for x in tasks]}
        )
        edges = tuple(rank_edges({x.id: x.score for x in tasks}, edge_rows, t))
        roles = task_roles(task, names)
        return Guidance(task, tasks, edges, roles, render_guidance(task, tasks, edges, roles))


# --- rows ------------------------------------------------------------------------------------


def _trajectory_row(t: Trajectory) -> dict[str, Any]:
    return {
        "id": t.stored_id,
        "task_id": task_id(t.task),
        "props": {
            "source_id": t.id,
            "kind": t.kind,
            "task": t.task,
            "reward": t.reward,
            "initial_observation": t.initial_observation,
            "steps_json": json.dumps([[s.action, s.observation] for s in t.steps]),
            "metadata_json": json.dumps(t.metadata, sort_keys=True, default=str),
            "n_steps": len(t.steps),
            "content_hash": None,
            "caption": f"{t.kind} ({len(t.steps)} steps, reward {t.reward:g})",
        },
    }


def _trajectory_from_row(row: dict[str, Any]) -> Trajectory:
    steps = tuple(Step(str(a), str(o)) for a, o in json.loads(row["steps_json"]))
    return Trajectory(
        id=row["source_id"],
        task=row["task"],
        kind=row["kind"],
        reward=float(row["reward"]),
        steps=steps,
        initial_observation=row.get("initial_observation") or "",
    )


def _action_rows(stored_id: str, graph: DecisionGraph) -> list[dict[str, Any]]:
    return [
        {
            "id": f"{stored_id}#{node.label}",
            "trajectory_id": stored_id,
            "props": {
                "label": node.label,
                "type": node.action.type,
                "object": node.action.object,
                "receptacle": node.action.receptacle,
                "key": node.key,
                "raw": node.raw,
            },
        }
        for node in graph.nodes
    ]


def _edge_rows(stored_id: str, graph: DecisionGraph) -> list[dict[str, Any]]:
    rows = []
    for e in graph.edges:
        ident = f"{stored_id}#{e.source}>{e.target}#{e.label}"
        rows.append(
            {
                "id": ident,
                "source": f"{stored_id}#{e.source}",
                "target": f"{stored_id}#{e.target}",
                "props": {
                    "id": ident,
                    "label": e.label,
                    "observation": e.state,
                    "raw_observation": e.observation,
                    "valid": e.valid,
                    "steps": list(e.steps),
                    "step": e.steps[0],
                },
            }
        )
    return rows


def _match_row(pair: ComparedPair) -> dict[str, Any]:
    diff = pair.diff
    return {
        "exploration": pair.exploration.stored_id,
        "expert": pair.expert.stored_id,
        "props": {
            "cost": diff.cost,
            "method": diff.matching.method,
            "common_edges": len(diff.common_edges),
            "edit_ops": len(diff.edit_path),
            "diff_json": json.dumps(diff.as_dict()),
            "updated_at": now_ms(),
        },
    }
