"""Utility-aware retrieval (EvoGraph-Mem §3.3) as plain functions.

The service runs the same computation as Cypher (cypher/insights/retrieve.cypher); these are
its reference, used by tests to check the queries and readable on their own.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .models import InsightCandidate


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """The similarity of eq. 2."""
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def stored_compatible(key: str | None, stored: str | None) -> bool:
    """Whether a stored query can join the query set of a query with task key `key`: stored
    keys are "" for "no structure" and missing (None) for queries recorded before keys, which
    count as unknown."""
    return key is None or stored is None or stored == key


def top_k(
    query: Sequence[float],
    vectors: Mapping[str, Sequence[float]],
    k: int,
    *,
    key: str | None = None,
    keys: Mapping[str, str | None] | None = None,
    margin: float = math.inf,
) -> list[str]:
    """Eq. 2: the k stored queries most similar to the new one (ties by id), among those of
    its task structure (`key`, against the stored `keys`), and within `margin` of the
    closest's similarity (`RetrievalParams.seed_margin`)."""
    allowed = [q for q in vectors if stored_compatible(key, (keys or {}).get(q))]
    ranked = sorted(allowed, key=lambda qid: (-cosine(query, vectors[qid]), qid))[:k]
    if not ranked:
        return []
    floor = cosine(query, vectors[ranked[0]]) - margin
    return [q for q in ranked if cosine(query, vectors[q]) >= floor]


def expand(
    seeds: Iterable[str],
    neighbours: Mapping[str, Iterable[str]],
    *,
    key: str | None = None,
    keys: Mapping[str, str | None] | None = None,
) -> set[str]:
    """Eq. 3-4: Q̃^S = Q^S ∪ ΔQ, the seeds plus their neighbours on the query graph
    (similarity edges count in both directions) that are themselves of the query's task
    structure."""
    seed_set = set(seeds)
    found = set(seed_set)
    for seed in seed_set:
        found.update(
            n for n in neighbours.get(seed, ()) if stored_compatible(key, (keys or {}).get(n))
        )
    return found


def utility(positive: int, negative: int, lam: float) -> float:
    """Eq. 8: r = s − λ·c."""
    return positive - lam * negative


@dataclass(frozen=True)
class EvidenceNode:
    """An insight as retrieval sees it: z_k, Ω⁺ and Ω⁻ (eq. 6)."""

    id: str
    text: str
    active: bool
    positive: frozenset[str]
    negative: frozenset[str]


def rank_insights(
    query_set: set[str], insights: Iterable[EvidenceNode], *, lam: float, b: int
) -> list[InsightCandidate]:
    """Eq. 7-10: active insights with positive evidence in the set, scored by the evidence
    inside the set, best B first (ties: more positive evidence, then id)."""
    ranked: list[InsightCandidate] = []
    for node in insights:
        s = len(node.positive & query_set)  # eq. 9
        if not node.active or s == 0:  # eq. 7
            continue
        c = len(node.negative & query_set)
        ranked.append(InsightCandidate(node.id, node.text, utility(s, c, lam), s, c))
    ranked.sort(key=lambda r: (-r.score, -r.positive, r.id))
    return ranked[:b]  # eq. 10
