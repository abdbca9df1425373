"""What the experience layer learns from the runs it stores: intra-task insights from each
exploration matched against its task's expert run (§4.2.1), and cross-task edges between a
task and its nearest tasks with an expert run, carrying their shared workflow (§4.2.2)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from ..deps import Parts
from ..errors import LLMError
from ..nearest import nearest_one
from ..schema import now_ms
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
from .models import CommonEdge, CrossTaskInsight, DecisionGraph, GraphDiff, TaskInsights, Trajectory
from .normalize import normalize_task
from .rows import best_expert, match_row, trajectory_from_row

ProgressFn = Callable[[str, int, int], None]
"""on_progress(phase, advance, total): phases are 'storing', 'insights', 'cross-task'."""

OVERFETCH = 8
"""Nearest tasks asked for per task kept, before those of another structure are dropped."""
OVERFETCH_MAX = 512
"""The second, wider request when the first held too few tasks of the structure."""


class Learner:
    neighbours: int = 3
    """Cross-task edges per task: its nearest tasks with an expert run (§4.2.2)."""
    min_similarity: float = 0.5
    """Below this task similarity, two tasks are not "similar" and get no edge."""

    def __init__(self, parts: Parts) -> None:
        self.parts = parts

    def load_runs(self, space: str, task_ids: Sequence[str]) -> dict[str, list[Trajectory]]:
        rows = self.parts.store.read(
            "experience/task_trajectories", {"space": space, "ids": list(task_ids)}
        )
        runs: dict[str, list[Trajectory]] = defaultdict(list)
        for row in rows:
            runs[row["task_id"]].append(trajectory_from_row(row))
        return runs

    def refresh_tasks(self, space: str, task_ids: Sequence[str], progress: ProgressFn) -> int:
        """Intra-task insights (§4.2.1): each exploration run is matched against the task's
        expert run closest to it; the edit paths and common subgraphs become the insights."""
        runs = self.load_runs(space, task_ids)
        task_rows, match_rows = [], []
        for tid in task_ids:
            progress("insights", 1, len(task_ids))
            trajectories = runs.get(tid, [])
            if not trajectories:
                continue
            experts = [t for t in trajectories if t.kind == "expert"]
            explorations = [t for t in trajectories if t.kind == "exploration"]
            pairs = [self._compare(x, experts) for x in explorations] if experts else []
            insights = self._task_insights(space, best_expert(experts), pairs, explorations)
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
            match_rows += [match_row(pair) for pair in pairs]
        store, batch = self.parts.store, self.parts.defaults.batch_size
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
        space: str,
        expert: Trajectory | None,
        pairs: Sequence[ComparedPair],
        explorations: Sequence[Trajectory],
    ) -> TaskInsights:
        fallback = template_task_insights(expert, pairs, explorations)
        llm = self.parts.llm_for(space)
        if llm is None or not (pairs or expert):
            return fallback
        task = (expert or explorations[0]).task
        try:
            return llm_task_insights(llm, task, expert, pairs)
        except LLMError:
            if self.parts.defaults.llm_fallback == "offline":
                return fallback
            raise

    def _cross_insight(
        self, space: str, a: str, b: str, common: Sequence[CommonEdge]
    ) -> CrossTaskInsight:
        llm = self.parts.llm_for(space)
        if llm is None:
            return template_cross_insight(a, b, common)
        try:
            return llm_cross_insight(llm, a, b, common)
        except LLMError:
            if self.parts.defaults.llm_fallback == "offline":
                return template_cross_insight(a, b, common)
            raise

    def link_similar(
        self, space: str, vectors: dict[str, list[float]], progress: ProgressFn
    ) -> int:
        """Cross-task insights (§4.2.2): each new task with an expert run is linked to its
        nearest tasks with one; their expert graphs, on abstract labels, are matched and the
        common subgraph is the shared workflow on the edge."""
        store = self.parts.store
        rows = store.read("experience/get_tasks", {"space": space, "ids": sorted(vectors)})
        with_expert = {row["id"] for row in rows if row.get("has_expert")}
        texts = {str(row["id"]): str(row["text"]) for row in rows}
        neighbours: dict[str, list[tuple[str, float]]] = {}
        for tid in sorted(with_expert):
            rows = self.nearest(
                space,
                vectors[tid],
                self.neighbours,
                [tid],
                experts_only=True,
                task=texts[tid],
                fresh=True,
            )
            neighbours[tid] = [
                (row["id"], float(row["similarity"]))
                for row in rows
                if float(row["similarity"]) >= self.min_similarity
            ]
        involved = sorted(with_expert | {n for near in neighbours.values() for n, _ in near})
        experts: dict[str, Trajectory] = {}
        for tid, runs in self.load_runs(space, involved).items():
            best = best_expert([t for t in runs if t.kind == "expert"])
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
                        space,
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
        batch = self.parts.defaults.batch_size
        store.write_batches(
            "experience/upsert_similar", edge_rows, batch_size=batch, params={"space": space}
        )
        store.write_batches(
            "experience/prune_similar", prune_rows, batch_size=batch, params={"space": space}
        )
        return len(edge_rows)

    def nearest(
        self,
        space: str,
        vector: list[float],
        k: int,
        exclude: list[str],
        *,
        experts_only: bool = False,
        task: str | None = None,
        task_type: str | None = None,
        rescore: bool = True,
        fresh: bool = False,
    ) -> list[dict[str, Any]]:
        """The k nearest tasks; given the `task` text, only those similar to it in the sense
        shared with the insights layer (`task_similarity`: the same procedure, or either
        unknown), from an over-fetched candidate list. `rescore` (for similarities that are
        stored) gives both engines the same value to the last bit; a read that only ranks
        skips it and the stored vectors it needs."""

        def fetch(n: int) -> list[dict[str, Any]]:
            return nearest_one(
                self.parts.store,
                "experience/nearest_tasks",
                vector,
                space=space,
                k=n,
                params={"exclude": exclude, "experts_only": experts_only},
                rescore=rescore,
            )

        if task is None:
            return fetch(k)
        reader = self.parts.structures(space, "experience", fresh=fresh)
        key = task_key(task, reader, task_type)
        for n in (OVERFETCH * k, OVERFETCH_MAX):  # a second, wider look when the first is short
            rows = fetch(n)
            kept = similar_tasks(key, rows, lambda r: task_key(str(r["text"]), reader), k)
            if len(kept) >= k or len(rows) < n:
                break
        return kept
