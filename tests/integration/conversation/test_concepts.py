"""The concept source on both engines: turns reached from entities near the query's words
(search_concepts.cypher), and hybrid search using it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from graphmem_neo4j.conversation import search as search_module
from graphmem_neo4j.conversation.models import ConversationConfig, FusionWeights, TurnInput
from graphmem_neo4j.conversation.ranker import FEATURES, LinearRanker, Rankers
from graphmem_neo4j.memory import GraphMemory

TURNS = [
    ("s1", "s1-t1", "Maya", "I play the clarinet in a small band."),
    ("s1", "s1-t2", "Tom", "Nice! I bought a violin and a clarinet last year."),
    ("s2", "s2-t1", "Maya", "I cleaned the clarinet today."),
    ("s3", "s3-t1", "Maya", "I sold the violin to a friend."),
    ("s3", "s3-t2", "Tom", "We went hiking in the hills."),
]


def load(memory: GraphMemory, space: str) -> dict[str, str]:
    turns = [TurnInput(session=s, turn_id=t, speaker=p, text=x) for s, t, p, x in TURNS]
    memory.conversation.add_turns(turns, space=space, forget_every=0)
    rows = memory.store.read(
        "conversation/entities_by_key", {"space": space, "keys": ["clarinet", "violin"]}
    )
    return {str(r["key"]): str(r["id"]) for r in rows}


def concepts(memory: GraphMemory, space: str, **params: Any) -> dict[str, float]:
    rows = memory.store.read(
        "conversation/search_concepts",
        {"space": space, "max_mentions": 20, "speakers": [], "candidates": 10, **params},
    )
    return {str(r["id"]): float(r["score"]) for r in rows}


def test_turns_mentioning_the_given_entities_are_scored_by_weight_and_rarity(
    memory: GraphMemory, space: str
) -> None:
    ids = load(memory, space)
    assert set(ids) == {"clarinet", "violin"}
    both = [{"id": ids["clarinet"], "weight": 0.6}, {"id": ids["violin"], "weight": 0.6}]
    reached = concepts(memory, space, entities=both)
    assert set(reached) == {"s1-t1", "s1-t2", "s2-t1", "s3-t1"}
    # two entities beat one; the rarer violin (2 turns) beats the clarinet (3 turns)
    assert reached["s1-t2"] > reached["s3-t1"] > reached["s1-t1"] == reached["s2-t1"]
    # the weight scales the score
    low = concepts(memory, space, entities=[{"id": ids["violin"], "weight": 0.3}])
    assert low["s3-t1"] * 2 == pytest.approx(reached["s3-t1"])
    # only the named participants' turns
    assert set(concepts(memory, space, entities=both, speakers=["Tom"])) == {"s1-t2"}
    # an entity in more turns than max_mentions passes nothing
    assert set(concepts(memory, space, entities=both, max_mentions=2)) == {"s1-t2", "s3-t1"}
    assert concepts(memory, space, entities=[{"id": "no-such-entity", "weight": 1.0}]) == {}


def test_hybrid_search_marks_turns_found_through_concepts(memory: GraphMemory, space: str) -> None:
    load(memory, space)
    query = "What clarinet songs has Maya played?"  # asks for several facts
    memory.conversation.config = ConversationConfig(
        weights=FusionWeights(concept=0.6, concept_min_similarity=0.9)
    )
    hits = memory.conversation.search(query, space=space, k=5).hits
    # the hash embedder gives "clarinet" a cosine of 1 with the entity "clarinet" only
    assert {h.turn_id for h in hits if "concept" in h.via} == {"s1-t1", "s2-t1"}  # Maya's
    off = replace(memory.conversation.config.weights, concept=0.0)
    memory.conversation.config = ConversationConfig(weights=off)
    hits = memory.conversation.search(query, space=space, k=5).hits
    assert not any("concept" in h.via for h in hits)


def test_the_learned_ranker_reads_the_concept_list_for_every_question(
    memory: GraphMemory, space: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a learned ranker the concept source runs whatever the fusion's weights say, also
    for a question that does not ask for several facts; the ranker weighs its list."""
    load(memory, space)
    n = len(FEATURES)
    reads_concepts = Rankers(
        (
            LinearRanker(
                "hash",
                FEATURES,
                (0.0,) * n,
                (1.0,) * n,
                tuple(1.0 if f == "concept relative" else 0.0 for f in FEATURES),
                0.0,
                (-1e9,) * n,
                (1e9,) * n,
            ),
        )
    )
    monkeypatch.setattr(search_module, "chosen_ranker", lambda config, model: reads_concepts)
    memory.conversation.config = ConversationConfig(
        weights=FusionWeights(concept=0.0, concept_min_similarity=0.9)
    )
    for query in ("What clarinet songs has Maya played?", "Did Maya play the clarinet?"):
        hits = memory.conversation.search(query, space=space, k=2).hits
        # the concept list alone orders these two: Maya's clarinet turns, nothing else first
        assert {h.turn_id for h in hits} == {"s1-t1", "s2-t1"}, query
        assert all("concept" in h.via for h in hits)
    no_roots = replace(memory.conversation.config.weights, concept_roots=0)
    memory.conversation.config = ConversationConfig(weights=no_roots)
    hits = memory.conversation.search("Did Maya play the clarinet?", space=space, k=5).hits
    assert not any("concept" in h.via for h in hits)
