import pytest

from graphmem_neo4j.errors import InputError
from graphmem_neo4j.insights.models import (
    RetrievalParams,
    SimilarQuery,
    seeds_within,
    within_margin,
)
from graphmem_neo4j.insights.scoring import (
    EvidenceNode,
    cosine,
    expand,
    rank_insights,
    top_k,
    utility,
)


def node(
    id: str, positive: set[str], negative: set[str] | None = None, active: bool = True
) -> EvidenceNode:
    return EvidenceNode(id, f"text {id}", active, frozenset(positive), frozenset(negative or ()))


def test_cosine_and_top_k() -> None:
    assert cosine([1, 0], [0, 1]) == 0
    assert cosine([1, 1], [2, 2]) == pytest.approx(1)
    assert cosine([0, 0], [1, 0]) == 0
    vectors = {"a": [1.0, 0.0], "b": [0.6, 0.8], "c": [-1.0, 0.0], "d": [1.0, 0.0]}
    assert top_k([1.0, 0.0], vectors, 3) == ["a", "d", "b"]


def test_the_seed_margin_drops_queries_far_below_the_closest() -> None:
    vectors = {"a": [1.0, 0.0], "b": [0.99, 0.141], "c": [0.6, 0.8]}  # cosines 1, 0.99, 0.6
    assert top_k([1.0, 0.0], vectors, 3) == ["a", "b", "c"]
    assert top_k([1.0, 0.0], vectors, 3, margin=0.05) == ["a", "b"]
    assert top_k([0.6, 0.8], vectors, 3, margin=0.05) == ["c"]
    found = [SimilarQuery("a", 0.93), SimilarQuery("b", 0.9), SimilarQuery("c", 0.7)]
    assert within_margin(found, 0.05) == found[:2]
    assert within_margin(found, float("inf")) == found
    assert within_margin(found, 0.0) == found[:1]
    assert within_margin([], 0.05) == []
    assert RetrievalParams().seed_margin == 0.05  # the default every caller gets
    with pytest.raises(InputError):
        RetrievalParams(seed_margin=-0.1)


def test_seeds_are_within_the_margin_and_above_the_floor() -> None:
    found = [SimilarQuery("a", 0.62), SimilarQuery("b", 0.58), SimilarQuery("c", 0.4)]
    assert seeds_within(found, 0.05, 0.0) == found[:2]
    assert seeds_within(found, 1.0, 0.6) == found[:1]
    # a task unlike anything recorded seeds nothing, however close its nearest is to the others
    assert seeds_within(found, 1.0, 0.7) == []
    assert RetrievalParams().min_similarity == 0.3  # the default every caller gets
    with pytest.raises(InputError):
        RetrievalParams(edge_min_similarity=-2)
    with pytest.raises(InputError):
        RetrievalParams(min_similarity=1.5)


def test_expansion_adds_neighbours_of_seeds_only() -> None:
    neighbours = {"a": ["b"], "b": ["c"], "x": ["y"]}
    assert expand(["a"], neighbours) == {"a", "b"}
    assert expand([], neighbours) == set()


def test_utility_is_positive_minus_lambda_times_negative() -> None:
    assert utility(3, 2, 1.0) == 1
    assert utility(3, 2, 0.5) == 2
    assert utility(1, 2, 0.0) == 1


def test_candidates_need_activity_and_positive_evidence_in_the_set() -> None:
    nodes = [
        node("active", {"q1"}),
        node("archived", {"q1", "q2"}, active=False),
        node("elsewhere", {"q9"}),
        node("only-negative", set(), {"q1"}),
    ]
    ranked = rank_insights({"q1", "q2"}, nodes, lam=1.0, b=10)
    assert [r.id for r in ranked] == ["active"]


def test_evidence_outside_the_set_does_not_count() -> None:
    ranked = rank_insights({"q1"}, [node("i", {"q1", "q5", "q6"}, {"q7", "q8"})], lam=1.0, b=5)
    assert (ranked[0].positive, ranked[0].negative, ranked[0].score) == (1, 0, 1.0)


def test_conflicts_push_an_insight_down_and_lambda_sets_how_far() -> None:
    nodes = [node("broad", {"q1", "q2", "q3"}, {"q4", "q5"}), node("narrow", {"q1", "q2"})]
    qs = {"q1", "q2", "q3", "q4", "q5"}
    assert [r.id for r in rank_insights(qs, nodes, lam=1.0, b=2)] == ["narrow", "broad"]
    assert [r.id for r in rank_insights(qs, nodes, lam=0.0, b=2)] == ["broad", "narrow"]


def test_top_b_and_ties_break_on_positive_then_id() -> None:
    nodes = [node("b", {"q1"}), node("a", {"q1"}), node("c", {"q1", "q2"}, {"q3"})]
    ranked = rank_insights({"q1", "q2", "q3"}, nodes, lam=1.0, b=2)
    # all score 1.0: c has more positive evidence, then a before b by id
    assert [r.id for r in ranked] == ["c", "a"]
