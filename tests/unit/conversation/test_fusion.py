from __future__ import annotations

from dataclasses import replace

import pytest

from graphmem_neo4j.conversation.dedup import cluster_new_names, entity_id
from graphmem_neo4j.conversation.fusion import (
    Candidate,
    fuse,
    named_speakers,
    query_entity_keys,
    rrf,
    single_source,
)
from graphmem_neo4j.conversation.models import FusionWeights
from graphmem_neo4j.conversation.text import TimeRange

W = FusionWeights(graph=0.3, speaker_several=0.15, dated=0.3, concept=0.6)
"""The weights with the rules that are off by default switched on."""


def c(
    tid: str, seq: int, speaker: str = "Ann", session: str = "s1", time: int | None = None
) -> Candidate:
    return Candidate(tid, session, seq, speaker, f"text {tid}", time)


def test_a_strong_lexical_match_beats_a_vague_semantic_one() -> None:
    hits = fuse(
        lexical=[(c("a", 1), 9.0), (c("b", 5), 1.0)],
        dense=[(c("b", 5), 0.40), (c("a", 1), 0.35)],
        graph=[],
        weights=W,
    )
    assert [h.turn_id for h in hits] == ["a", "b"]
    assert hits[0].via == ("fulltext", "vector")


def test_turns_missing_from_the_dense_list_get_its_floor_not_zero() -> None:
    hits = fuse(
        lexical=[(c("lex", 1), 1.0)],
        dense=[(c("d1", 10), 0.50), (c("d2", 20), 0.30)],
        graph=[],
        weights=W,
    )
    by_id = {h.turn_id: h.score for h in hits}
    assert by_id["lex"] == pytest.approx(W.lexical + W.dense * 0.30, rel=1e-6)


def test_speaker_named_in_the_query_is_preferred_when_boosted() -> None:
    args = {
        "lexical": [(c("ann", 1, "Ann"), 1.0), (c("bo", 9, "Bo"), 1.0)],
        "dense": [(c("ann", 1, "Ann"), 0.5), (c("bo", 9, "Bo"), 0.5)],
        "graph": [],
        "weights": FusionWeights(speaker=0.15),
    }
    assert fuse(**args, speakers={"Bo"})[0].turn_id == "bo"  # type: ignore[arg-type]
    assert fuse(**args, speakers={"Ann"})[0].turn_id == "ann"  # type: ignore[arg-type]
    # Off by default (leave-one-conversation-out on LoCoMo dev): a tie stays a tie.
    plain = fuse(**{**args, "weights": W}, speakers={"Bo"})  # type: ignore[arg-type]
    assert plain[0].score == pytest.approx(plain[1].score)


def test_an_answer_inherits_from_the_question_before_it() -> None:
    question, answer, other = c("q", 3), c("a", 4), c("x", 10)
    dense = [(question, 0.8), (answer, 0.3), (other, 0.32), (c("y", 20), 0.1), (c("z", 30), 0.1)]
    plain = fuse(lexical=[], dense=dense, graph=[], weights=FusionWeights(previous=0, following=0))
    assert [h.turn_id for h in plain][:3] == ["q", "x", "a"]
    hits = fuse(lexical=[], dense=dense, graph=[], weights=W)
    assert [h.turn_id for h in hits][:2] == ["q", "a"]
    assert "context" in hits[1].via
    # Neighbours are turns of the same session only.
    moved = [(question, 0.8), (c("a", 4, session="s2"), 0.3), (other, 0.32), (c("y", 20), 0.1)]
    assert [h.turn_id for h in fuse(lexical=[], dense=moved, graph=[], weights=W)][1] == "x"


def test_turns_in_a_named_time_range_get_the_time_bonus() -> None:
    span = TimeRange(1000, 2000, "then")
    hits = fuse(
        lexical=[],
        dense=[(c("out", 1, time=5000), 0.5), (c("in", 9, time=1500), 0.45)],
        graph=[],
        weights=W,
        ranges=[span],
    )
    assert hits[0].turn_id == "in"


def test_turns_that_name_a_time_get_the_dated_bonus_only_when_marked() -> None:
    dense = [(c("plain", 1), 0.5), (c("dated", 9), 0.45)]
    assert fuse(lexical=[], dense=dense, graph=[], weights=W)[0].turn_id == "plain"
    hits = fuse(lexical=[], dense=dense, graph=[], weights=W, dated={"dated"})
    assert hits[0].turn_id == "dated"
    assert hits[0].score == pytest.approx(W.dense * 0.45 + W.dated)
    off = FusionWeights(dated=0.0)
    assert fuse(lexical=[], dense=dense, graph=[], weights=off, dated={"dated"})[0].turn_id == (
        "plain"
    )


def test_graph_only_candidates_join_the_pool() -> None:
    hits = fuse(lexical=[], dense=[(c("d", 1), 0.2)], graph=[(c("g", 7), 3.0)], weights=W, k=5)
    assert {h.turn_id for h in hits} == {"d", "g"}
    assert next(h for h in hits if h.turn_id == "g").via == ("graph",)
    assert fuse(lexical=[], dense=[], graph=[], weights=W) == []


def test_single_source_and_rrf() -> None:
    ranked = single_source([(c("a", 1), 0.1), (c("b", 2), 0.9), (c("c", 3), 0.5)], "vector", 2)
    assert [h.turn_id for h in ranked] == ["b", "c"]
    assert rrf([["a", "b", "c"], ["b", "c", "a"]])[0] == "b"
    assert rrf([["a", "b"], ["a", "c"]])[0] == "a"


def test_named_speakers_and_query_keys() -> None:
    speakers = {"Maya Lopez", "Tom"}
    assert named_speakers("What did Maya adopt?", speakers) == {"Maya Lopez"}
    assert named_speakers("Did tom and maya lopez meet?", speakers) == speakers
    assert named_speakers("Who adopted a dog?", speakers) == set()
    keys = query_entity_keys("", ["Biscuit", "Maya"], ["vet", "maya", "biscuit"], speakers)
    assert keys == ["biscuit", "vet"]


def test_entity_clusters_and_ids() -> None:
    assert entity_id("pottery class") == entity_id("pottery class")
    assert entity_id("pottery class") != entity_id("pottery")
    clusters = cluster_new_names(
        ["dog", "dogs", "cat", "kitty", "none"],
        [[1.0, 0.0], [1.98, 0.1], [0.0, 1.0], [0.3, 0.954], [0.0, 0.0]],  # not unit length
        0.92,
    )
    assert [(cl.key, cl.members) for cl in clusters] == [
        ("dog", ("dog", "dogs")),
        ("cat", ("cat", "kitty")),
        ("none", ("none",)),  # a zero vector is like nothing
    ]
    # Greedy in first-seen order: a name joins the first representative it is close to,
    # not a later name it is closer to.
    a, b, c = [1.0, 0.0], [0.94, 0.341], [0.77, 0.638]  # cos(a,b) .94, (a,c) .77, (b,c) .94
    assert [cl.members for cl in cluster_new_names(["a", "b", "c"], [a, b, c], 0.92)] == [
        ("a", "b"),
        ("c",),
    ]
    assert cluster_new_names([], [], 0.92) == []
    with pytest.raises(ValueError):
        cluster_new_names(["a"], [], 0.9)


def test_clustering_many_names_matches_comparing_them_pair_by_pair() -> None:
    """More names than one block of rows: the same clusters as the greedy rule computed name
    by name."""
    import random

    rng = random.Random(3)
    centres = [[rng.gauss(0, 1) for _ in range(16)] for _ in range(300)]
    vectors = [[x + rng.gauss(0, 0.15) for x in rng.choice(centres)] for _ in range(1300)]
    keys = [f"n{i}" for i in range(len(vectors))]

    def cos(a: list[float], b: list[float]) -> float:
        dot = sum(x * y for x, y in zip(a, b, strict=True))
        return dot / (sum(x * x for x in a) * sum(y * y for y in b)) ** 0.5

    expected: list[tuple[list[float], list[str]]] = []
    for key, vec in zip(keys, vectors, strict=True):
        home = next((m for rep, m in expected if cos(vec, rep) >= 0.92), None)
        if home is None:
            expected.append((vec, [key]))
        else:
            home.append(key)
    clusters = cluster_new_names(keys, vectors, 0.92)
    assert [list(cl.members) for cl in clusters] == [m for _, m in expected]
    assert 250 < len(clusters) < 1300  # names did fold together, and not all into one


def test_relative_dense_scores_are_the_same_on_any_cosine_scale() -> None:
    """A model whose cosines sit high and close together (0.80-0.86) ranks like one that
    spreads them (0.20-0.80) once the dense score is relative to the list."""
    weights = FusionWeights(dense=1.0, dense_relative=True, previous=0.0, following=0.0)
    lexical = [(c("lex", 1), 1.0), (c("mid", 5), 0.5)]

    def ranking(cosines: list[float]) -> list[tuple[str, float]]:
        dense = [
            (c(t, s), x)
            for (t, s), x in zip([("d", 9), ("mid", 5), ("lex", 1)], cosines, strict=False)
        ]
        hits = fuse(lexical=lexical, dense=dense, graph=[], weights=weights)
        return [(h.turn_id, round(h.score, 6)) for h in hits]

    spread, packed = ranking([0.80, 0.50, 0.20]), ranking([0.86, 0.83, 0.80])
    assert spread == packed
    # relative cosine: d 1.0, mid 0.5, lex 0.0; lexical over its best: lex 1.0, mid 0.5
    assert dict(spread) == pytest.approx({"d": 1.0, "mid": 1.0, "lex": 1.0})
    raw = fuse(
        lexical=lexical,
        dense=[(c("d", 9), 0.86), (c("lex", 1), 0.80)],
        graph=[],
        weights=replace(weights, dense_relative=False),
    )
    assert {h.turn_id: h.score for h in raw}["lex"] == pytest.approx(1.0 + 0.80)


def test_a_model_with_its_own_constants_gets_them_and_others_the_defaults() -> None:
    from graphmem_neo4j.conversation.models import config_for_model, weights_for_model

    bge = weights_for_model("/home/u/.graphmem/models/bge-small-en-v1.5/")
    assert (bge.dense, bge.dense_relative, bge.previous) == (1.0, True, 0.5)
    assert bge.lexical == FusionWeights().lexical
    assert weights_for_model("all-MiniLM-L6-v2") == FusionWeights()
    assert config_for_model("hash-384").weights == FusionWeights()
    mine = FusionWeights(graph=0.3)
    assert weights_for_model("bge-small-en-v1.5", mine).graph == 0.3
