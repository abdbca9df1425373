"""`add-text` through an LLM: the wiring, against the fake OpenAI-compatible server."""

from __future__ import annotations

import json

import pytest

from graphmem_neo4j.errors import LLMError
from graphmem_neo4j.llm import OpenAICompatibleLLM
from graphmem_neo4j.memory import GraphMemory
from tests.fakes.openai_server import FakeOpenAI


def llm_memory(memory: GraphMemory, fake: FakeOpenAI) -> GraphMemory:
    llm = OpenAICompatibleLLM(model="fake", base_url=fake.base_url, api_key="k", max_retries=1)
    return GraphMemory(memory.settings, store=memory.store, embedder=memory.embedder, llm=llm)


def test_the_llm_builds_the_units(memory: GraphMemory, space: str, fake_openai: FakeOpenAI) -> None:
    answer = {
        "facts": [
            {"subject": "Alice", "relation": "lives_in", "object": "Paris", "category": "location",
             "valid_from": "2019", "confidence": 0.9},
            {"subject": "Alice", "relation": "drinks", "object": "tea", "category": "preference",
             "context": "in the evening"},
            {"subject": "Alice", "relation": "bad {relation}", "object": "x", "category": "y"},
        ]
    }  # fmt: skip
    fake_openai.queue("not json", json.dumps(answer))
    mem = llm_memory(memory, fake_openai)
    report = mem.facts.add_text("Alice has lived in Paris since 2019; tea at night.", space=space)
    assert report.counts()["created"] == 2  # the invalid unit is dropped
    sent = fake_openai.requests[0]["body"]["messages"]
    assert "memory units" in sent[0]["content"]
    assert sent[1]["content"].startswith("Alice has lived in Paris")
    assert len(fake_openai.requests) == 2  # one retry after the invalid answer
    now = {
        (u.relation_key, u.object, u.context_key) for u in mem.facts.current("Alice", space=space)
    }
    assert now == {("lives_in", "Paris", None), ("drinks", "tea", "evening")}


def test_a_failing_llm_falls_back_to_the_offline_patterns(
    memory: GraphMemory, space: str, fake_openai: FakeOpenAI
) -> None:
    fake_openai.queue(500, 500)
    mem = llm_memory(memory, fake_openai)
    report = mem.facts.add_text("Bob works at Acme since 2020.", space=space)
    assert report.counts()["created"] == 1
    assert mem.facts.current("Bob", space=space)[0].object == "Acme"


def test_without_fallback_the_llm_error_surfaces(
    memory: GraphMemory, space: str, fake_openai: FakeOpenAI
) -> None:
    fake_openai.queue(500, 500)
    settings = memory.settings.model_copy(update={"llm_fallback": "error"})
    llm = OpenAICompatibleLLM(
        model="fake", base_url=fake_openai.base_url, api_key="k", max_retries=1
    )
    mem = GraphMemory(settings, store=memory.store, embedder=memory.embedder, llm=llm)
    with pytest.raises(LLMError):
        mem.facts.add_text("Bob works at Acme.", space=space)


def test_offline_can_be_forced(memory: GraphMemory, space: str, fake_openai: FakeOpenAI) -> None:
    mem = llm_memory(memory, fake_openai)
    mem.facts.add_text("Carol lives in Oslo.", space=space, use_llm=False)
    assert fake_openai.requests == []
    assert mem.facts.current("Carol", space=space)[0].object == "Oslo"
