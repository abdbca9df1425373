"""Retrieval of the experience memory graph (§4.3): how tasks are embedded, how the edges
around the top-K tasks are ranked, and the guidance text an agent puts in its prompt."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .insights import ROLE_LEGEND
from .models import RetrievedEdge, RetrievedTask
from .normalize import normalize_task, skeleton


def embedding_texts(task: str, names: Iterable[str]) -> tuple[str, str]:
    """The two texts a task is embedded from: itself, and its skeleton (what must be done,
    with the things it names blanked out)."""
    text = normalize_task(task)
    return text, skeleton(text, names) or text


def combine(text_vector: Sequence[float], skeleton_vector: Sequence[float]) -> list[float]:
    """One unit vector from both: the normalised sum. Its cosine with another such vector is
    (up to normalisation) the mean of the two cosines plus cross terms, so two tasks are close
    when they name the same things AND ask for the same procedure. The paper embeds the query
    alone; on ALFWorld that ranks "put a hot mug in coffeemachine" next to "put a mug in
    coffeemachine" (same things, another procedure): see docs/experience.md for the figures."""
    summed = [a + b for a, b in zip(text_vector, skeleton_vector, strict=True)]
    norm = math.sqrt(sum(x * x for x in summed))
    if norm == 0.0:
        return list(text_vector)
    return [x / norm for x in summed]


def rank_edges(
    task_scores: Mapping[str, float], rows: Iterable[Mapping[str, Any]], t: int
) -> list[RetrievedEdge]:
    """Top-T Task–Task edges touching the top-K tasks. An edge scores the retrieval score of
    its top-K end times the similarity of the two tasks it joins: a close neighbour of a close
    task ranks first. Both directions of a pair count once."""
    best: dict[frozenset[str], RetrievedEdge] = {}
    for row in rows:
        ends = [task_scores[end] for end in (row["source"], row["target"]) if end in task_scores]
        if not ends:
            continue
        similarity = float(row["similarity"])
        edge = RetrievedEdge(
            source=str(row["source"]),
            target=str(row["target"]),
            source_text=str(row["source_text"]),
            target_text=str(row["target_text"]),
            score=max(ends) * similarity,
            similarity=similarity,
            insight=str(row["insight"]),
            workflow=tuple(row.get("workflow") or ()),
        )
        pair = frozenset((edge.source, edge.target))
        if pair not in best or edge.score > best[pair].score:
            best[pair] = edge
    ranked = sorted(best.values(), key=lambda e: (-e.score, e.source, e.target))
    return ranked[: max(t, 0)]


def render_guidance(
    query: str,
    tasks: Sequence[RetrievedTask],
    edges: Sequence[RetrievedEdge],
    roles: Mapping[str, str],
) -> str:
    """Plain text for an agent's prompt."""
    if not tasks:
        return "No experience stored for tasks like this one yet."
    lines = [f"Experience from tasks similar to: {query.strip()}"]
    for rank, task in enumerate(tasks, start=1):
        lines.append(f"{rank}. {task.text} (similarity {task.score:.2f})")
        lines.extend(f"   - {insight}" for insight in task.insights)
    if edges:
        legend = ", ".join(f"{role} = {name}" for name, role in roles.items())
        where = f"; in your task {legend}" if legend else ""
        lines.append(f"Workflows shared by similar tasks ({ROLE_LEGEND}{where}):")
        lines.extend(f"- {edge.insight}" for edge in edges)
    return "\n".join(lines)
