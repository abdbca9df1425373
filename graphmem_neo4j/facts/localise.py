"""MicroGraph-based path-level localisation (HiGram §3.2): temporary units → anchors →
candidate MicroGraphs → top-Kg support subgraph → up to Kp evidence paths of at most h hops →
φ_H → the affected evidence path. The graph work is the Cypher under cypher/facts/; the scores
are in scoring.py. Read-only."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..nearest import nearest_one
from ..store.base import GraphStore
from .models import LocalisationStats, MemoryUnit, TempUnit
from .results import EvidencePath, Localisation
from .scoring import (
    WEIGHTS,
    Weights,
    attribute_match,
    best_path_score,
    category_compatibility,
    rank_micrographs,
)


@dataclass(frozen=True)
class LocaliseConfig:
    kg: int = 12
    """MicroGraphs kept in the support subgraph (eq. 7)."""
    kp: int = 24
    """Candidate evidence paths enumerated (§3.2)."""
    h: int = 3
    """Maximum hops of an evidence path; the Cypher pattern allows at most 3."""
    subject_similarity: float = 0.85
    """Least cosine for a Subject name to anchor by vector match."""
    category_similarity: float = 0.85
    unit_similarity: float = 0.3
    """Least cosine for a unit to lend its subject as an anchor to a question."""
    vector_anchors: int = 5

    def __post_init__(self) -> None:
        if not 0 <= self.h <= 3:
            raise ValueError("h must be between 0 and 3")
        if self.kg < 1 or self.kp < 1:
            raise ValueError("kg and kp must be at least 1")


def merge_scores(*maps: Mapping[str, float]) -> dict[str, float]:
    merged: dict[str, float] = {}
    for scores in maps:
        for key, score in scores.items():
            merged[key] = max(score, merged.get(key, 0.0))
    return merged


class Localiser:
    def __init__(
        self, store: GraphStore, config: LocaliseConfig, weights: Weights = WEIGHTS
    ) -> None:
        self.store = store
        self.config = config
        self.weights = weights

    # --- anchors (eq. 5) ---------------------------------------------------------------------
    def exact(self, query: str, space: str, keys: Sequence[str]) -> dict[str, str]:
        """key → name of the upper-level nodes (`facts/find_subjects`, ...) named exactly."""
        if not keys:
            return {}
        rows = self.store.read(query, {"space": space, "keys": list(dict.fromkeys(keys))})
        return {str(r["id"]): str(r["name"]) for r in rows}

    def similar(
        self, query: str, space: str, embedding: Sequence[float], least: float, k: int
    ) -> dict[str, float]:
        rows = nearest_one(self.store, query, embedding, space=space, k=k, min_similarity=least)
        return {str(r["id"]): min(1.0, float(r["similarity"])) for r in rows}

    def subject_anchors(
        self, space: str, key: str, embedding: Sequence[float] | None
    ) -> dict[str, float]:
        """A subject named by an update or a structured query: itself (1.0; a subject not in
        the graph simply has no MicroGraph) and Subject nodes with a close name."""
        close: dict[str, float] = {}
        if embedding is not None:
            close = self.similar(
                "facts/similar_subjects",
                space,
                embedding,
                self.config.subject_similarity,
                self.config.vector_anchors,
            )
        return {**close, key: 1.0}

    def category_anchors(
        self, space: str, key: str | None, embedding: Sequence[float] | None
    ) -> dict[str, float]:
        close: dict[str, float] = {}
        if embedding is not None:
            close = self.similar(
                "facts/similar_categories",
                space,
                embedding,
                self.config.category_similarity,
                self.config.vector_anchors,
            )
        return {**close, key: 1.0} if key else close

    def unit_anchors(
        self, space: str, embedding: Sequence[float]
    ) -> tuple[dict[str, float], dict[str, float]]:
        """Subjects and categories of the active units closest to a question."""
        rows = nearest_one(
            self.store,
            "facts/similar_units",
            embedding,
            space=space,
            k=self.config.vector_anchors,
            min_similarity=self.config.unit_similarity,
        )
        subjects: dict[str, float] = {}
        categories: dict[str, float] = {}
        for r in rows:
            sim = min(1.0, float(r["similarity"]))
            subjects[str(r["subject"])] = max(sim, subjects.get(str(r["subject"]), 0.0))
            categories[str(r["category"])] = max(sim, categories.get(str(r["category"]), 0.0))
        return subjects, categories

    # --- localisation --------------------------------------------------------------------------
    def localise(
        self,
        space: str,
        temps: Sequence[TempUnit],
        *,
        categories: Mapping[str, float] | None = None,
    ) -> Localisation:
        started = time.perf_counter()
        cfg = self.config
        subjects = merge_scores(*(t.subjects for t in temps))
        categories = dict(categories or {})
        rows: list[dict[str, Any]] = []
        if subjects:
            rows = self.store.read(
                "facts/micrographs", {"space": space, "subjects": sorted(subjects)}
            )
        elif categories:
            rows = self.store.read(
                "facts/micrographs_by_category",
                {"space": space, "categories": sorted(categories), "limit": cfg.kg * 4},
            )
        candidates = [
            (
                str(r["subject"]),
                str(r["category"]),
                category_compatibility(
                    categories.get(str(r["category"]), 0.0), r["relations"] or [], temps
                ),
            )
            for r in rows
            if r["active"] > 0
        ]
        scanned = sum(int(r["scanned"]) for r in rows)
        selected = rank_micrographs(candidates, subjects, cfg.kg, self.weights)
        if not selected:
            return Localisation(
                (),
                (),
                (),
                LocalisationStats(
                    anchors=len(subjects) + len(categories),
                    units_scanned=scanned,
                    elapsed_ms=(time.perf_counter() - started) * 1000,
                ),
            )
        support_rows = self.store.read(
            "facts/support_subgraph",
            {
                "space": space,
                "micrographs": [{"subject": s, "category": c} for s, c, _ in selected],
            },
        )
        units: dict[str, MemoryUnit] = {}
        supporters: dict[str, list[str]] = {}
        embeddings: dict[str, Sequence[float] | None] = {}
        for r in support_rows:
            unit = MemoryUnit.from_row(r["unit"])
            units[unit.id] = unit
            embeddings[unit.id] = r["unit"].get("embedding")
            supporters[unit.id] = [str(s["status"]) for s in r["supporters"] or []]
        attributes = [
            {uid: attribute_match(u, t, embeddings[uid], self.weights) for uid, u in units.items()}
            for t in temps
        ]
        seeds = sorted(units, key=lambda uid: (-max(a[uid] for a in attributes), uid))
        path_rows = self.store.read(
            "facts/evidence_paths",
            {
                "space": space,
                "seeds": seeds[: cfg.kp],
                "scope": list(units),
                "h": cfg.h,
                "kp": cfg.kp,
            },
        )
        paths = []
        for r in path_rows:
            chain = tuple(units[uid] for uid in r["units"] if uid in units)
            if not chain:
                continue
            score, which = best_path_score(
                chain, temps, attributes=attributes, supporters=supporters, weights=self.weights
            )
            head = max(chain, key=lambda u: attributes[which][u.id])
            edges = tuple((str(a), str(b)) for a, b in r["edges"] or [])
            paths.append(EvidencePath(chain, edges, score, head))
        paths.sort(key=lambda p: (-p.score.total, -len(p.units), p.head.id))
        stats = LocalisationStats(
            anchors=len(subjects) + len(categories),
            candidate_micrographs=len({(a, b) for a, b, _ in candidates}),
            micrographs=len(selected),
            units_read=len(support_rows),
            units_scanned=scanned,
            paths=len(paths),
            elapsed_ms=(time.perf_counter() - started) * 1000,
        )
        return Localisation(tuple(selected), tuple(units.values()), tuple(paths), stats)
