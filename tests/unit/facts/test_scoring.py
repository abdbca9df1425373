import pytest

from graphmem_neo4j.facts.models import MemoryUnit, TempUnit, UnitStatus
from graphmem_neo4j.facts.scoring import (
    attribute_match,
    category_compatibility,
    context_compatibility,
    cosine,
    dependency_consistency,
    micrograph_relevance,
    path_score,
    rank_micrographs,
    relation_match,
)


def unit(
    uid: str, relation: str = "lives_in", context: str | None = None, **kw: object
) -> MemoryUnit:
    base: dict[str, object] = {
        "id": uid,
        "subject": "Alice",
        "relation": relation,
        "object": "Paris",
        "category": "location",
        "context": context,
        "status": UnitStatus.ACTIVE,
        "confidence": 0.8,
        "valid_from": 100,
        "valid_to": None,
        "recorded_at": 100,
        "source": None,
        "text": "Alice lives in Paris",
        "subject_key": "alice",
        "relation_key": relation,
        "object_key": "paris",
        "category_key": "location",
        "context_key": context,
    }
    base.update(kw)
    return MemoryUnit(**base)  # type: ignore[arg-type]


def temp(**kw: object) -> TempUnit:
    base: dict[str, object] = {
        "subjects": {"alice": 1.0},
        "relation_key": None,
        "relation_terms": frozenset({"liv"}),
        "category_key": None,
        "context_key": None,
        "moment": 500,
        "text": "where does alice live",
    }
    base.update(kw)
    return TempUnit(**base)  # type: ignore[arg-type]


def test_relevance_weighs_subject_over_category() -> None:
    assert micrograph_relevance(1.0, 0.0) > micrograph_relevance(0.0, 1.0)
    assert micrograph_relevance(1.0, 1.0) == pytest.approx(1.0)
    assert micrograph_relevance(0.0, 0.0) == 0.0


def test_top_kg_micrographs_are_the_best_matching() -> None:
    candidates = [
        ("bob", "location", 1.0),
        ("alice", "sport", 0.0),
        ("alice", "location", 1.0),
        ("carl", "x", 0.0),
    ]
    top = rank_micrographs(candidates, {"alice": 1.0, "bob": 0.5}, kg=2)
    # the subject weighs more than the category: (alice, sport) 0.7 beats (bob, location) 0.65
    assert [(s, c) for s, c, _ in top] == [("alice", "location"), ("alice", "sport")]
    assert top[0][2] == pytest.approx(1.0) and top[1][2] == pytest.approx(0.7)
    assert rank_micrographs(candidates, {"alice": 1.0, "bob": 0.5}, kg=3)[2][:2] == (
        "bob",
        "location",
    )
    assert len(rank_micrographs(candidates * 3, {}, kg=10)) == 4  # duplicates count once


def test_category_compatibility_falls_back_to_the_relations_held() -> None:
    q = temp(relation_terms=frozenset({"liv"}))
    assert category_compatibility(1.0, [], [q]) == 1.0
    assert category_compatibility(0.0, ["works_at", "lives_in"], [q]) == 1.0
    assert category_compatibility(0.0, ["works_at"], [q]) == 0.0
    assert category_compatibility(0.3, ["works_at"], [q]) == 0.3


def test_relation_match_by_key_or_by_shared_words() -> None:
    assert relation_match("lives_in", temp()) == 1.0
    assert relation_match("works_at", temp()) == 0.0
    assert relation_match("home_city", temp(relation_terms=frozenset({"city"}))) == 0.5
    assert relation_match("x", temp(relation_key="x", relation_terms=frozenset())) == 1.0


def test_attribute_match_rewards_each_matching_attribute() -> None:
    q = temp(category_key="location", embedding=(1.0, 0.0))
    full = attribute_match(unit("a"), q, (1.0, 0.0))
    assert full == pytest.approx(1.0)
    assert attribute_match(unit("a", relation="works_at"), q, (1.0, 0.0)) < full
    assert attribute_match(unit("a", subject_key="bob"), q, (1.0, 0.0)) < full
    assert attribute_match(unit("a"), q, (0.0, 1.0)) < full


def test_context_compatibility_prefers_the_asked_condition() -> None:
    assert context_compatibility("evening", "evening") == 1.0
    assert context_compatibility(None, None) == 1.0
    assert context_compatibility(None, "evening") > context_compatibility("morning", "evening")
    assert context_compatibility(None, None) > context_compatibility("evening", None) > 0.0
    assert context_compatibility("morning", "evening") == 0.0


def test_dependency_consistency_is_the_active_share_of_supporters() -> None:
    assert dependency_consistency([]) == 1.0
    assert dependency_consistency(["active", "superseded"]) == 0.5
    assert dependency_consistency(["outdated"]) == 0.0


def test_path_score_combines_the_four_parts() -> None:
    units = [unit("a"), unit("b", relation="works_at", valid_from=900)]
    score = path_score(
        units,
        temp(),
        attributes={"a": 0.9, "b": 0.2},
        supporters={"b": ["active", "outdated"]},
    )
    assert score.attribute == 0.9
    assert score.dependency == pytest.approx(0.75)
    assert score.temporal == pytest.approx(0.5)  # b is not valid yet at moment 500
    assert score.context == 1.0
    assert score.total == pytest.approx(0.55 * 0.9 + 0.15 * 0.75 + 0.10 * 0.5 + 0.20 * 1.0)


def test_a_path_valid_in_the_asked_context_outscores_one_that_is_not() -> None:
    q = temp(context_key="evening")
    evening = path_score([unit("e", context="evening")], q, attributes={"e": 0.7}, supporters={})
    morning = path_score([unit("m", context="morning")], q, attributes={"m": 0.7}, supporters={})
    general = path_score([unit("g")], q, attributes={"g": 0.7}, supporters={})
    assert evening.total > general.total > morning.total


def test_cosine_handles_degenerate_vectors() -> None:
    assert cosine([1.0, 0.0], [1.0, 0.0]) == pytest.approx(1.0)
    assert cosine(None, [1.0]) == 0.0
    assert cosine([0.0, 0.0], [1.0, 0.0]) == 0.0
    assert cosine([1.0], [1.0, 0.0]) == 0.0
