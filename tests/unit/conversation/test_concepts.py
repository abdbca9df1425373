"""The concept source without an engine: the probes a question gives, which entities count and
how much, how a turn only this source found enters the ranking, and the activity entities
the offline extractor can add."""

from __future__ import annotations

import pytest

from graphmem_neo4j.conversation.extract import OfflineExtractor
from graphmem_neo4j.conversation.fusion import Candidate, concept_weights, fuse
from graphmem_neo4j.conversation.models import FusionWeights, TurnInput
from graphmem_neo4j.conversation.text import query_phrases


def test_query_phrases_put_adjacent_content_words_first() -> None:
    assert query_phrases("What martial arts has John done?") == [
        "martial arts",
        "john done",
        "martial",
        "arts",
        "john",
        "done",
    ]
    # stopwords break a pair; the limit counts pairs and words together
    assert query_phrases("What activities does Melanie partake in?", limit=2) == [
        "melanie partake",
        "activities",
    ]
    assert query_phrases("What is it?") == []


def hit(eid: str, name: str, similarity: float, kind: str = "thing") -> dict[str, object]:
    return {"id": eid, "name": name, "type": kind, "similarity": similarity}


def test_concept_weights_keep_each_entitys_best_cosine_and_skip_people_and_dates() -> None:
    per_probe = {
        "": [hit("e1", "clarinet", 0.55), hit("p1", "Maya", 0.9, kind="person")],
        "instruments": [
            hit("e1", "clarinet", 0.62),
            hit("e2", "violin", 0.6),
            hit("d1", "2023-05-07", 0.7, kind="date"),
        ],
        "play": [hit("e3", "Tom", 0.8, kind="name"), hit("e2", "violin", 0.4)],
    }
    weights = concept_weights(per_probe, participants={"tom"})
    assert weights == {"e1": 0.62, "e2": 0.6}
    assert concept_weights({}, participants=()) == {}


def cand(tid: str, session: str = "s1", seq: int = 0, speaker: str = "Maya") -> Candidate:
    return Candidate(id=tid, session=session, seq=seq, speaker=speaker, text=tid)


def test_a_turn_found_only_by_the_concept_source_enters_the_ranking() -> None:
    lexical = [(cand("t1", seq=1), 5.0), (cand("t2", seq=5), 4.0)]
    dense = [(cand("t1", seq=1), 0.6), (cand("t2", seq=5), 0.5)]
    concept = [(cand("t9", session="s7", seq=3), 0.8), (cand("t1", seq=1), 0.4)]
    off = FusionWeights(previous=0.0, following=0.0, concept=0.0)
    without = fuse(lexical=lexical, dense=dense, graph=[], weights=off, k=3, concept=concept)
    assert [h.turn_id for h in without] == ["t1", "t2", "t9"]
    assert without[2].score == pytest.approx(off.dense * 0.5)  # weight 0: the floor only
    on = FusionWeights(previous=0.0, following=0.0, concept=2.0)
    hits = fuse(lexical=lexical, dense=dense, graph=[], weights=on, k=3, concept=concept)
    assert [h.turn_id for h in hits] == ["t1", "t9", "t2"]
    assert hits[1].via == ("concept",)
    assert hits[1].score == pytest.approx(on.dense * 0.5 + on.concept)  # the best: 1.0
    assert "concept" in hits[0].via
    assert hits[0].score == pytest.approx(on.lexical + on.dense * 0.6 + on.concept * 0.5)


def entities(text: str, *, activities: bool) -> dict[str, str]:
    turn = TurnInput(session="s", turn_id="t", speaker="Mel", text=text)
    got = OfflineExtractor(activities=activities).extract_one(turn, frozenset({"Mel"}))
    return {e.name: e.type for e in got.entities}


@pytest.mark.parametrize(
    ("text", "activity"),
    [
        ("I'm off to go swimming with the kids.", "swimming"),
        ("I've been running farther to de-stress.", "running"),
        ("I'm doing kickboxing and it's giving me energy.", "kickboxing"),
        ("Caroline said the kids love painting.", "painting"),
    ],
)
def test_a_gerund_after_a_verb_of_doing_is_an_activity(text: str, activity: str) -> None:
    assert entities(text, activities=True).get(activity) == "activity"
    assert activity not in entities(text, activities=False)


def test_adjectives_and_light_verbs_in_ing_are_not_activities() -> None:
    got = entities("It's been amazing. I'm going shopping, we've been having fun.", activities=True)
    assert "amazing" not in got and "having" not in got
    assert got.get("shopping") == "activity"
