"""The offline rules and the LLM path (through the fake OpenAI-compatible server)."""

from __future__ import annotations

import json

import pytest

from graphmem_neo4j.conversation.extract import OfflineExtractor
from graphmem_neo4j.conversation.extract_llm import LLMExtractor
from graphmem_neo4j.conversation.models import TurnInput
from graphmem_neo4j.conversation.text import name_key, parse_iso
from graphmem_neo4j.errors import LLMError
from graphmem_neo4j.llm import OpenAICompatibleLLM
from tests.fakes.openai_server import FakeOpenAI

SPEAKERS = frozenset({"Maya", "Tom"})


def turn(text: str, speaker: str = "Maya", stamp: str | None = "2024-03-02T10:00:00Z") -> TurnInput:
    return TurnInput(
        session="s1",
        turn_id="t1",
        speaker=speaker,
        text=text,
        timestamp=parse_iso(stamp) if stamp else None,
    )


def keys(names: object) -> set[str]:
    return {name_key(n) for n in names}  # type: ignore[attr-defined]


def test_offline_extracts_names_phrases_dates_and_relations() -> None:
    got = OfflineExtractor().extract_one(
        turn("Yesterday I adopted a beagle called Biscuit from the Riverside Shelter."), SPEAKERS
    )
    entities = {name_key(e.name): e.type for e in got.entities}
    assert entities["biscuit"] == "name"
    assert entities["riverside shelter"] == "name"
    assert entities["beagle"] == "thing"
    assert entities[name_key("2024-03-01")] == "date"
    assert entities["maya"] == "person"
    rels = {(name_key(r.source), r.type, name_key(r.target)) for r in got.relations}
    assert ("maya", "adopted", "beagle") in rels
    assert ("beagle", "when", name_key("2024-03-01")) in rels
    assert all(r.fact.startswith("Maya: ") for r in got.relations)


def test_offline_possessives_and_quoted_titles() -> None:
    got = OfflineExtractor().extract_one(
        turn('Tom\'s sister loved "The Lighthouse Keeper" and my kids did too.', stamp=None),
        SPEAKERS,
    )
    assert {"the lighthouse keeper", "lighthouse keeper"} & keys(e.name for e in got.entities)
    rels = {(name_key(r.source), r.type, name_key(r.target)) for r in got.relations}
    assert ("tom", "has", "sister") in rels
    assert ("maya", "has", "kids") in rels


def test_offline_skips_greetings_and_sentence_initial_common_words() -> None:
    got = OfflineExtractor().extract_one(turn("Hey Tom! Painting is fun. Thanks!"), SPEAKERS)
    names = keys(e.name for e in got.entities)
    assert "tom" in names
    assert not names & {"hey", "painting", "thanks", "hey tom"}


def test_offline_is_deterministic() -> None:
    text = "We went to Lisbon last week and I bought a red bike for my son."
    a = OfflineExtractor().extract_one(turn(text), SPEAKERS)
    b = OfflineExtractor().extract_one(turn(text), SPEAKERS)
    assert a == b
    assert ("maya", "went_to", "lisbon") in {
        (name_key(r.source), r.type, name_key(r.target)) for r in a.relations
    }


ANSWER = {
    "turns": [
        {
            "turn_id": "t1",
            "entities": [{"name": "Maya", "type": "person"}, {"name": "Biscuit", "type": "dog"}],
            "relations": [
                {
                    "source": "Maya",
                    "target": "Biscuit",
                    "type": "Adopted",
                    "fact": "Maya adopted Biscuit.",
                }
            ],
        }
    ]
}


def llm(fake: FakeOpenAI) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM(model="fake", base_url=fake.base_url, api_key="k", max_retries=1)


def test_llm_extraction_is_validated_and_typed(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(json.dumps(ANSWER))
    extractor = LLMExtractor(llm(fake_openai), fallback=OfflineExtractor())
    (got,) = extractor.extract([turn("I adopted Biscuit.")], SPEAKERS)
    assert [(e.name, e.type) for e in got.entities] == [("Maya", "person"), ("Biscuit", "dog")]
    (rel,) = got.relations
    assert (rel.source, rel.type, rel.target) == ("Maya", "adopted", "Biscuit")
    body = fake_openai.requests[0]["body"]
    assert "[t1] (2024-03-02) Maya: I adopted Biscuit." in body["messages"][1]["content"]
    assert extractor.fallbacks == 0


def test_llm_relation_to_an_unknown_entity_is_retried(fake_openai: FakeOpenAI) -> None:
    bad = json.loads(json.dumps(ANSWER))
    bad["turns"][0]["relations"][0]["target"] = "Pixel"
    fake_openai.queue(json.dumps(bad), json.dumps(ANSWER))
    (got,) = LLMExtractor(llm(fake_openai), fallback=None).extract([turn("x")], SPEAKERS)
    assert len(fake_openai.requests) == 2
    assert "not in its entities" in fake_openai.requests[1]["body"]["messages"][-1]["content"]
    assert got.relations[0].target == "Biscuit"


def test_llm_failure_falls_back_to_rules_or_raises(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue("not json", "still not json")
    extractor = LLMExtractor(llm(fake_openai), fallback=OfflineExtractor())
    (got,) = extractor.extract([turn("I adopted a beagle.")], SPEAKERS)
    assert extractor.fallbacks == 1
    assert "beagle" in keys(e.name for e in got.entities)
    fake_openai.queue(500, 500)
    with pytest.raises(LLMError):
        LLMExtractor(llm(fake_openai), fallback=None).extract([turn("x")], SPEAKERS)


def test_llm_skipping_a_turn_is_filled_by_the_rules(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(json.dumps(ANSWER))
    two = [turn("I adopted Biscuit."), TurnInput("s1", "t2", "Tom", "I visited Porto.")]
    extractor = LLMExtractor(llm(fake_openai), fallback=OfflineExtractor())
    first, second = extractor.extract(two, SPEAKERS)
    assert first.entities[1].name == "Biscuit"
    assert "porto" in keys(e.name for e in second.entities)
