"""Recall's candidates from each layer, on one relevance scale: each layer is asked through
its own service (conversation hybrid search, facts localisation, insights utility ranking,
experience guidance) and its hits become `Candidate`s with a calibrated relevance, a
strength within the layer, and the reason they were chosen."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from ..deps import Layers, Parts
from .models import Candidate, RecallConfig
from .rank import Coverage, calibrate, relative

Vector = Callable[[], list[float]]
"""The query's embedding, computed on first need (by whichever layer asks first)."""


def _day(ms: int | None) -> str:
    if ms is None:
        return ""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).date().isoformat()


class Gatherers:
    def __init__(self, parts: Parts, layers: Layers, config: RecallConfig) -> None:
        self.parts = parts
        self.layers = layers
        self.config = config
        self.clock: int | None = None
        """The space's clock as the conversation search read it (recall's access stamp)."""

    def _relevance(self, cosine: float) -> float:
        floor, full = self.config.band(self.parts.embedder.name)
        return calibrate(cosine, floor, full)

    def _similarities(
        self, query: str, ids: Sequence[str], vector: Vector, space: str
    ) -> dict[str, float]:
        if not ids:
            return {}
        rows = self.parts.store.read(
            query, {"space": space, "ids": list(ids), "embedding": vector()}
        )
        return {str(r["id"]): float(r["similarity"]) for r in rows}

    def conversation(self, query: str, vector: Vector, space: str, budget: int) -> list[Candidate]:
        k = self.config.turns_wanted(budget)
        result = self.layers.conversation.search(query, space=space, k=k, touch=False)
        hits = result.hits
        self.clock = result.clock
        cosines = self._similarities(
            "recall/turn_similarity", [h.turn_id for h in hits], vector, space
        )
        strengths = relative([h.score for h in hits])
        coverage = Coverage(query, ignore=result.speakers)
        found = []
        for hit, n in zip(hits, strengths, strict=True):
            cosine = cosines.get(hit.turn_id, 0.0)
            words = coverage(hit.text)
            day = _day(hit.time)
            found.append(
                Candidate(
                    layer="conversation",
                    label="Turn",
                    id=hit.turn_id,
                    text=f"{day + ' ' if day else ''}{hit.speaker}: {hit.text}",
                    relevance=max(self._relevance(cosine), words),
                    strength=n,
                    why=f"{'+'.join(hit.via)}, cos {cosine:.2f}, words {words:.2f}",
                    details={
                        "session": hit.session,
                        "hybrid_score": round(hit.score, 4),
                        "via": list(hit.via),
                        "cosine": round(cosine, 4),
                        "word_coverage": round(words, 4),
                    },
                    order=(hit.time if hit.time is not None else -1, hit.session, hit.seq or 0),
                )
            )
        return found

    def facts(self, query: str, vector: Vector, space: str) -> list[Candidate]:
        """Units on the evidence paths that answer the question: a path counts when its
        attribute match reaches what `facts ask` needs to name an answer (a path that only
        shares the subject does not; it would bring every fact about the person). A unit's
        strength is that attribute match, an absolute score, 0.9 of it off the path's head;
        its relevance the better of its calibrated cosine and how far the match is above
        that threshold."""
        service = self.layers.facts
        threshold = service.config.min_answer_attribute
        paths = service.localise_question(query, space=space).paths
        best: dict[str, tuple[float, int, bool, float]] = {}
        units = {}
        for number, path in enumerate(paths[: self.config.facts_k], start=1):
            if path.score.attribute < threshold:
                continue
            for unit in path.units:
                head = unit.id == path.head.id
                value = path.score.attribute * (1.0 if head else 0.9)
                if unit.id not in best or value > best[unit.id][0]:
                    best[unit.id] = (value, number, head, path.score.total)
                    units[unit.id] = unit
        ids = sorted(best, key=lambda i: -best[i][0])
        cosines = self._similarities("recall/unit_similarity", ids, vector, space)
        found = []
        for unit_id in ids:
            unit = units[unit_id]
            value, number, head, total = best[unit_id]
            cosine = cosines.get(unit_id, 0.0)
            since = _day(unit.valid_from)
            found.append(
                Candidate(
                    layer="facts",
                    label="MemoryUnit",
                    id=unit_id,
                    text=unit.text + (f" (since {since})" if since else ""),
                    # an exact subject-and-relation match is relevance in its own right,
                    # whatever the cosine of a long or compound question says
                    relevance=max(self._relevance(cosine), calibrate(value, threshold, 1.0)),
                    strength=min(1.0, value),
                    why=f"evidence path {number}{' head' if head else ''}, "
                    f"match {value:.2f}, cos {cosine:.2f}",
                    details={
                        "path": number,
                        "attribute": round(value, 4),
                        "path_score": round(total, 4),
                        "cosine": round(cosine, 4),
                        "subject": unit.subject,
                        "relation": unit.relation,
                        "object": unit.object,
                        "status": unit.status.value,
                    },
                )
            )
        return found

    def insights(self, query: str, vector: Vector, space: str) -> list[Candidate]:
        retrieval = self.layers.insights.retrieve_by_vector(
            vector(), space=space, params=self.config.insights, query=query
        )
        if not retrieval.insights:
            return []
        similar = retrieval.queries[0].similarity if retrieval.queries else 0.0
        r = self._relevance(similar)
        strengths = relative([c.score for c in retrieval.insights])
        return [
            Candidate(
                layer="insights",
                label="Insight",
                id=c.id,
                text=c.text,
                relevance=r,
                strength=n,
                why=f"+{c.positive}/-{c.negative} on similar tasks (cos {similar:.2f})",
                details={
                    "utility": c.score,
                    "positive": c.positive,
                    "negative": c.negative,
                    "nearest_task_cosine": round(similar, 4),
                },
            )
            for c, n in zip(retrieval.insights, strengths, strict=True)
        ]

    def experience(self, query: str, space: str, vocabulary: Sequence[str]) -> list[Candidate]:
        cfg = self.config
        guidance = self.layers.experience.retrieve(
            query, space=space, k=cfg.experience_k, t=cfg.experience_t, vocabulary=vocabulary
        )
        found = []
        task_strengths = relative([t.score for t in guidance.tasks])
        for task, n in zip(guidance.tasks, task_strengths, strict=True):
            if task.insights:
                lesson = " ".join(task.insights)
            elif task.workflow:
                lesson = "expert workflow: " + "; ".join(task.workflow)
            else:
                continue
            found.append(
                Candidate(
                    layer="experience",
                    label="Task",
                    id=task.id,
                    text=f"{task.text}: {lesson}",
                    relevance=self._relevance(task.score),
                    strength=n,
                    why=f"similar task, cos {task.score:.2f}",
                    details={"similarity": round(task.score, 4), "trajectories": task.trajectories},
                )
            )
        edge_strengths = relative([e.score for e in guidance.edges])
        for edge, n in zip(guidance.edges, edge_strengths, strict=True):
            if not edge.insight:
                continue
            found.append(
                Candidate(
                    layer="experience",
                    label="SIMILAR_TASK",
                    id=f"{edge.source}>{edge.target}",
                    text=edge.insight,
                    relevance=self._relevance(edge.score),
                    strength=n,
                    why=f"workflow shared by similar tasks, {edge.score:.2f}",
                    details={
                        "source": edge.source,
                        "target": edge.target,
                        "edge_similarity": round(edge.similarity, 4),
                    },
                )
            )
        return found
