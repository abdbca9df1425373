"""The parts of the graph channel that need no engine: which questions ask for several facts,
session diversification, the spread source in fusion, and pronoun-led turns' referents."""

from __future__ import annotations

import pytest

from graphmem_neo4j.conversation.coref import inherit_referents, opens_with_pronoun
from graphmem_neo4j.conversation.fusion import Candidate, diversified, fuse
from graphmem_neo4j.conversation.models import (
    ExtractedEntity,
    FusionWeights,
    TurnExtraction,
    TurnInput,
)
from graphmem_neo4j.conversation.text import asks_for_several, asks_when


@pytest.mark.parametrize(
    "question",
    [
        "What books has Maya read?",
        "Where has Maya camped?",
        "What activities does Tom partake in?",
        "What do Maya and Tom both like?",
        "How many times did Tom go to the beach?",
    ],
)
def test_questions_asking_for_several_facts(question: str) -> None:
    assert asks_for_several(question)


@pytest.mark.parametrize(
    "question",
    [
        "What did Maya adopt?",
        "When did Tom go to the Azores?",
        "What is Maya's dog called?",
        "Does Tom like hiking?",
        "Why was this necessary?",
        "",
    ],
)
def test_questions_asking_for_one_fact(question: str) -> None:
    assert not asks_for_several(question)


def test_diversified_is_the_plain_top_k_without_diversity() -> None:
    order = ["a1", "a2", "b1", "a3"]
    score = {"a1": 4.0, "a2": 3.0, "b1": 2.9, "a3": 2.0}
    session = {"a1": "A", "a2": "A", "b1": "B", "a3": "A"}
    assert diversified(order, score, session, 0.0, 3) == ["a1", "a2", "b1"]


def test_diversified_penalises_each_further_turn_of_a_session() -> None:
    order = ["a1", "a2", "a3", "b1", "c1"]
    score = {"a1": 4.0, "a2": 3.9, "a3": 3.8, "b1": 3.0, "c1": 1.0}
    session = {"a1": "A", "a2": "A", "a3": "A", "b1": "B", "c1": "C"}
    # a2: 3.9 * 0.7 = 2.73 < b1 3.0; then a2 2.73 > a3 3.8 * 0.49
    assert diversified(order, score, session, 0.3, 3) == ["a1", "b1", "a2"]
    # a big enough lead survives the penalty
    assert diversified(order, score, session, 0.01, 3) == ["a1", "a2", "a3"]


def cand(tid: str, session: str = "s1", seq: int = 0, speaker: str = "Maya") -> Candidate:
    return Candidate(id=tid, session=session, seq=seq, speaker=speaker, text=tid)


def test_a_turn_found_only_by_spreading_enters_the_ranking() -> None:
    lexical = [(cand("t1", seq=1), 5.0), (cand("t2", seq=5), 4.0)]
    dense = [(cand("t1", seq=1), 0.6), (cand("t2", seq=5), 0.5)]
    reached = cand("t9", session="s7", seq=3)
    spread = [(reached, 2.0)]
    weights = FusionWeights(previous=0.0, following=0.0, spread=0.3)
    without = fuse(lexical=lexical, dense=dense, graph=[], weights=weights, k=3)
    assert [h.turn_id for h in without] == ["t1", "t2"]
    hits = fuse(lexical=lexical, dense=dense, graph=[], weights=weights, k=3, spread=spread)
    assert [h.turn_id for h in hits] == ["t1", "t2", "t9"]
    assert hits[2].via == ("spread",)
    # its score: the dense floor plus the full spread weight (it is the best spread turn)
    assert hits[2].score == pytest.approx(weights.dense * 0.5 + weights.spread)


def turn(tid: str, speaker: str, text: str, session: str = "s1") -> TurnInput:
    return TurnInput(session=session, turn_id=tid, speaker=speaker, text=text)


def ents(*names: str, kind: str = "thing") -> TurnExtraction:
    return TurnExtraction(entities=tuple(ExtractedEntity(n, kind) for n in names))


def test_a_pronoun_led_turn_mentions_its_speakers_last_referents() -> None:
    turns = [
        turn("1", "Mel", "I took the kids to the museum."),
        turn("2", "Caro", "What were they so stoked about?"),
        turn("3", "Mel", "They loved the dinosaur exhibit!"),
    ]
    extractions = [
        TurnExtraction(
            entities=(
                ExtractedEntity("kids", "thing"),
                ExtractedEntity("museum", "thing"),
                ExtractedEntity("2023-05-07", "date"),
                ExtractedEntity("Caro", "person"),
            )
        ),
        ents(),
        ents("dinosaur exhibit"),
    ]
    out = inherit_referents(turns, extractions)
    assert [e.name for e in out[2].entities] == ["dinosaur exhibit", "kids", "museum"]
    # the other speaker's question is not the speaker's own earlier turn: nothing borrowed
    # from turn 1 by Caro, whose previous own turn is not in reach
    assert out[1] == extractions[1]
    assert out[0] == extractions[0]


def test_referents_stay_within_the_session_and_need_a_pronoun() -> None:
    turns = [
        turn("1", "Mel", "I took the kids to the museum.", session="s1"),
        turn("2", "Mel", "They loved it.", session="s2"),
        turn("3", "Mel", "The exhibit was great.", session="s2"),
    ]
    extractions = [ents("kids", "museum"), ents(), ents("exhibit")]
    out = inherit_referents(turns, extractions)
    assert out == extractions
    assert opens_with_pronoun("It was an awesome time!")
    assert not opens_with_pronoun("Italy was great") and not opens_with_pronoun("")


@pytest.mark.parametrize(
    "question",
    [
        "When did Tom go to the Azores?",
        "What year did Maya adopt Rex?",
        "In which month did Tom start running?",
        "How long has Maya been painting?",
        "Since when has Tom lived in Porto?",
        "Which day is the party?",
    ],
)
def test_questions_asking_when(question: str) -> None:
    assert asks_when(question)


@pytest.mark.parametrize(
    "question",
    [
        "What did Maya adopt?",
        "Where did Tom go in May?",
        "What books has Maya read?",
        "Who did Maya meet last week?",
        "Why was the date moved?",
        "",
    ],
)
def test_questions_not_asking_when(question: str) -> None:
    assert not asks_when(question)
