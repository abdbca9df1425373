"""The experience layer's keys and rows: a task's id, a run's content hash, and the rows of
trajectories, actions, NEXT_ACTION edges and MATCHED_TO pairs as the Cypher writes take them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from ..schema import now_ms
from .insights import ComparedPair
from .models import DecisionGraph, Step, Trajectory
from .normalize import normalize_task


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


def best_expert(experts: Sequence[Trajectory]) -> Trajectory | None:
    """The task's representative expert run: highest reward, then shortest."""
    return min(experts, key=lambda t: (-t.reward, len(t.steps), t.id), default=None)


def trajectory_row(t: Trajectory) -> dict[str, Any]:
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


def trajectory_from_row(row: dict[str, Any]) -> Trajectory:
    steps = tuple(Step(str(a), str(o)) for a, o in json.loads(row["steps_json"]))
    return Trajectory(
        id=row["source_id"],
        task=row["task"],
        kind=row["kind"],
        reward=float(row["reward"]),
        steps=steps,
        initial_observation=row.get("initial_observation") or "",
    )


def action_rows_of(stored_id: str, graph: DecisionGraph) -> list[dict[str, Any]]:
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


def edge_rows_of(stored_id: str, graph: DecisionGraph) -> list[dict[str, Any]]:
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


def match_row(pair: ComparedPair) -> dict[str, Any]:
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
