"""The scores of MicroGraph-based path-level localisation (HiGram §3.2). Pure functions.

- R(B, A), eq. 7: how well a MicroGraph (subject, category) matches the anchors.
- φ_H(P, M_temp), eq. 8: how well an evidence path fits the temporary units, from attribute
  match, dependency consistency, temporal validity and context compatibility.

The paper names the parts of both scores but not their weights; the weights below are ours.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .keys import terms
from .models import MemoryUnit, TempUnit, UnitStatus
from .results import PathScore


@dataclass(frozen=True)
class Weights:
    subject: float = 0.7
    """R: weight of subject matching; the rest goes to object-category compatibility."""
    attribute: float = 0.55
    dependency: float = 0.15
    temporal: float = 0.10
    context: float = 0.20
    # parts of the attribute match
    attr_subject: float = 0.35
    attr_relation: float = 0.35
    attr_category: float = 0.10
    attr_semantic: float = 0.20


WEIGHTS = Weights()


def micrograph_relevance(
    subject_score: float, category_score: float, weights: Weights = WEIGHTS
) -> float:
    """R(B, A_t) of eq. 7: subject matching plus object-category compatibility, in [0, 1]."""
    return weights.subject * subject_score + (1.0 - weights.subject) * category_score


def rank_micrographs(
    candidates: Sequence[tuple[str, str, float]],
    subject_scores: Mapping[str, float],
    kg: int,
    weights: Weights = WEIGHTS,
) -> list[tuple[str, str, float]]:
    """TopK_Kg of eq. 7 over the candidate MicroGraphs of eq. 6, given as (subject, category,
    category compatibility); ties go by key, for stability."""
    best: dict[tuple[str, str], float] = {}
    for subject, category, compatibility in candidates:
        r = micrograph_relevance(subject_scores.get(subject, 0.0), compatibility, weights)
        best[(subject, category)] = max(r, best.get((subject, category), 0.0))
    ranked = sorted(best.items(), key=lambda item: (-item[1], item[0]))
    return [(s, c, r) for (s, c), r in ranked[:kg]]


def category_compatibility(
    category_score: float, relations: Sequence[str], temps: Sequence[TempUnit]
) -> float:
    """The object-category part of R (eq. 7): the category anchor's score, or, when the query
    names no category, how well the MicroGraph's units' relations fit it."""
    fit = max((relation_match(r, t) for r in dict.fromkeys(relations) for t in temps), default=0.0)
    return max(category_score, fit)


def cosine(a: Sequence[float] | None, b: Sequence[float] | None) -> float:
    if not a or not b or len(a) != len(b):
        return 0.0
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return dot / (na * nb)


def relation_match(unit_relation_key: str, temp: TempUnit) -> float:
    """1 for the same relation; otherwise the share of the relation's words the query names."""
    if temp.relation_key is not None and temp.relation_key == unit_relation_key:
        return 1.0
    words = terms(unit_relation_key)
    if not words or not temp.relation_terms:
        return 0.0
    return len(words & temp.relation_terms) / len(words)


def attribute_match(
    unit: MemoryUnit,
    temp: TempUnit,
    embedding: Sequence[float] | None = None,
    weights: Weights = WEIGHTS,
) -> float:
    """Matching of MemoryUnit attributes (§3.2): subject, relation, category, and the meaning
    of the unit's text against the query's, in [0, 1]."""
    subject = temp.subjects.get(unit.subject_key, 0.0)
    relation = relation_match(unit.relation_key, temp)
    category = 1.0 if temp.category_key and temp.category_key == unit.category_key else 0.0
    semantic = max(0.0, cosine(embedding, temp.embedding))
    return (
        weights.attr_subject * subject
        + weights.attr_relation * relation
        + weights.attr_category * category
        + weights.attr_semantic * semantic
    )


def context_compatibility(unit_context: str | None, query_context: str | None) -> float:
    """1 when the unit holds in the query's context (or both are unconditional); a general unit
    still answers a conditional question (0.5) better than a unit conditioned on something the
    question did not ask about (0.3); a different condition does not apply (0)."""
    if unit_context == query_context:
        return 1.0
    if unit_context is None:
        return 0.5
    if query_context is None:
        return 0.3
    return 0.0


def temporal_validity(unit: MemoryUnit, moment: int) -> float:
    return 1.0 if unit.valid_at(moment) else 0.0


def dependency_consistency(supporter_statuses: Sequence[str]) -> float:
    """The share of a unit's supporters that are still active (1 for a unit with none)."""
    if not supporter_statuses:
        return 1.0
    active = sum(1 for s in supporter_statuses if s == UnitStatus.ACTIVE)
    return active / len(supporter_statuses)


def path_score(
    units: Sequence[MemoryUnit],
    temp: TempUnit,
    *,
    attributes: Mapping[str, float],
    supporters: Mapping[str, Sequence[str]],
    weights: Weights = WEIGHTS,
) -> PathScore:
    """φ_H(P, m̄) of eq. 8 for one temporary unit: the best attribute match on the path, and
    the mean dependency consistency, temporal validity and context compatibility of its units.
    `attributes` holds each unit's attribute match, `supporters` its supporters' statuses."""
    if not units:
        return PathScore(0.0, 0.0, 0.0, 0.0, 0.0)
    n = len(units)
    attribute = max(attributes.get(u.id, 0.0) for u in units)
    dependency = sum(dependency_consistency(supporters.get(u.id, ())) for u in units) / n
    temporal = sum(temporal_validity(u, temp.moment) for u in units) / n
    context = sum(context_compatibility(u.context_key, temp.context_key) for u in units) / n
    total = (
        weights.attribute * attribute
        + weights.dependency * dependency
        + weights.temporal * temporal
        + weights.context * context
    )
    return PathScore(total, attribute, dependency, temporal, context)


def best_path_score(
    units: Sequence[MemoryUnit],
    temps: Sequence[TempUnit],
    *,
    attributes: Sequence[Mapping[str, float]],
    supporters: Mapping[str, Sequence[str]],
    weights: Weights = WEIGHTS,
) -> tuple[PathScore, int]:
    """φ_H(P, M_temp): the path's score against its best-fitting temporary unit, and which."""
    best = PathScore(-1.0, 0.0, 0.0, 0.0, 0.0)
    which = 0
    for i, temp in enumerate(temps):
        score = path_score(
            units, temp, attributes=attributes[i], supporters=supporters, weights=weights
        )
        if score.total > best.total:
            best, which = score, i
    return best, which
