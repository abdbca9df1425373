"""The graph channel on both engines: spreading activation from seed turns through the
entities they share with other turns (search_spread.cypher), and coreference at ingestion."""

from __future__ import annotations

from typing import Any

import pytest

from graphmem_neo4j.conversation.models import ConversationConfig, FusionWeights, TurnInput
from graphmem_neo4j.memory import GraphMemory

TURNS = [
    ("s1", "s1-t1", "Maya", "I took the kids to the dinosaur museum yesterday."),
    ("s1", "s1-t2", "Tom", "Sounds fun! What did they like best?"),
    ("s1", "s1-t3", "Maya", "They loved the giant skeleton."),
    ("s2", "s2-t1", "Maya", "The kids want to go back to the dinosaur museum."),
    ("s2", "s2-t2", "Tom", "I went to the dinosaur museum with my nephew."),
    ("s3", "s3-t1", "Maya", "Hiking in the hills was great."),
]


def load(memory: GraphMemory, space: str) -> None:
    turns = [TurnInput(session=s, turn_id=t, speaker=p, text=x) for s, t, p, x in TURNS]
    memory.conversation.add_turns(turns, space=space, forget_every=0)


def spread(memory: GraphMemory, space: str, **params: Any) -> dict[str, float]:
    values = {
        "space": space,
        "seeds": [{"id": "s1-t1", "weight": 1.0}],
        "max_mentions": 20,
        "speakers": [],
        "candidates": 10,
        **params,
    }
    rows = memory.store.read("conversation/search_spread", values)
    return {str(r["id"]): float(r["score"]) for r in rows}


def test_spreading_reaches_turns_sharing_entities_in_other_sessions(
    memory: GraphMemory, space: str
) -> None:
    load(memory, space)
    reached = spread(memory, space)
    assert "s1-t1" not in reached  # never through its own mentions
    assert {"s2-t1", "s2-t2"} <= set(reached)
    assert "s3-t1" not in reached  # shares nothing
    # two shared entities (kids, dinosaur museum) beat one
    assert reached["s2-t1"] > reached["s2-t2"]
    # only the named participants' turns
    assert set(spread(memory, space, speakers=["Tom"])) <= {"s1-t2", "s2-t2"}
    assert "s2-t2" in spread(memory, space, speakers=["Tom"])
    # an entity in more turns than max_mentions is a hub: it passes nothing
    assert spread(memory, space, max_mentions=1) == {}


def test_a_pronoun_led_turn_mentions_what_its_speaker_just_mentioned(
    memory: GraphMemory, space: str
) -> None:
    memory.conversation.config = ConversationConfig(coreference=True)
    load(memory, space)
    reached = spread(memory, space)
    assert "s1-t3" in reached  # "They loved ..." now mentions the kids and the museum


def test_without_coreference_the_pronoun_led_turn_is_not_reached(
    memory: GraphMemory, space: str
) -> None:
    load(memory, space)  # coreference is off by default
    assert "s1-t3" not in spread(memory, space)


def test_hybrid_search_marks_turns_found_by_spreading(memory: GraphMemory, space: str) -> None:
    # spreading is off by default since the concept source came (docs/conversation.md)
    memory.conversation.config = ConversationConfig(weights=FusionWeights(spread=0.3))
    load(memory, space)
    result = memory.conversation.search("What places has Maya visited?", space=space, k=6)
    assert result.hits and result.hits[0].speaker == "Maya"
    assert any("spread" in h.via for h in result.hits)


MAY_8 = 1683504000000  # 2023-05-08 00:00 UTC

DATED_TURNS = [
    ("s1", "d1", "Maya", "We went hiking in the Azores last week, the cliffs were wild."),
    ("s1", "d2", "Tom", "Hiking in the Azores! I want to go hiking in the Azores with Maya too."),
    ("s1", "d3", "Maya", "You should, hiking there is the best."),
]


def load_dated(memory: GraphMemory, space: str) -> None:
    turns = [
        TurnInput(session=s, turn_id=t, speaker=p, text=x, timestamp=MAY_8 + i)
        for i, (s, t, p, x) in enumerate(DATED_TURNS)
    ]
    memory.conversation.add_turns(turns, space=space, forget_every=0)


def test_dated_turns_are_the_ones_that_mention_a_date(memory: GraphMemory, space: str) -> None:
    load_dated(memory, space)
    rows = memory.store.read(
        "conversation/dated_turns",
        {"space": space, "ids": ["d1", "d2", "d3", "missing"], "type": "date"},
    )
    assert [r["id"] for r in rows] == ["d1"]  # "last week", resolved against 8 May 2023


def scores(memory: GraphMemory, space: str, question: str, dated: float) -> dict[str, float]:
    # No inheritance between neighbours, so each turn's score is its own.
    weights = FusionWeights(dated=dated, previous=0.0, following=0.0)
    memory.conversation.config = ConversationConfig(weights=weights)
    hits = memory.conversation.search(question, space=space, k=3, touch=False).hits
    return {h.turn_id: h.score for h in hits}


def test_a_question_asking_when_favours_the_turn_that_names_a_time(
    memory: GraphMemory, space: str
) -> None:
    load_dated(memory, space)
    question = "When did Maya go hiking in the Azores?"
    off, on = scores(memory, space, question, 0.0), scores(memory, space, question, 1.0)
    assert on["d1"] == pytest.approx(off["d1"] + 1.0)  # the turn naming a time gains
    assert (on["d2"], on["d3"]) == pytest.approx((off["d2"], off["d3"]))  # the others do not
    assert max(off, key=off.__getitem__) == "d2"  # the stronger lexical match, without it
    assert max(on, key=on.__getitem__) == "d1"
    # A question that does not ask when gets no time signal.
    other = "Who went hiking in the Azores?"
    assert scores(memory, space, other, 0.0) == scores(memory, space, other, 0.3)
