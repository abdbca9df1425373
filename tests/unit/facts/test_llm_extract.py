import json

import pytest

from graphmem_neo4j.errors import LLMError
from graphmem_neo4j.facts.llm_extract import SYSTEM, extract_with_llm
from graphmem_neo4j.llm import OpenAICompatibleLLM
from tests.fakes.openai_server import FakeOpenAI


def client(fake: FakeOpenAI) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM(model="fake", base_url=fake.base_url, api_key="k", max_retries=1)


def test_units_are_validated_like_jsonl_lines(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(
        json.dumps(
            {
                "facts": [
                    {"subject": "Ann", "relation": "lives_in", "object": "Oslo",
                     "category": "location", "valid_from": "2020", "confidence": 0.7},
                    {"subject": "Ann", "relation": "likes", "object": "ski"},
                    {"subject": "Ann", "relation": "x; DROP", "object": "y", "category": "z"},
                    {"subject": "Ann", "relation": "born", "object": "Rome",
                     "category": "location", "valid_from": "long ago"},
                ]
            }
        )
    )  # fmt: skip
    facts, dropped = extract_with_llm(client(fake_openai), "Ann lives in Oslo.", source="chat")
    assert [(f.relation, f.object, f.category, f.source) for f in facts] == [
        ("lives_in", "Oslo", "location", "chat"),
        ("likes", "ski", "general", "chat"),
    ]
    assert dropped == 2
    messages = fake_openai.requests[0]["body"]["messages"]
    assert messages == [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Ann lives in Oslo."},
    ]


def test_an_answer_of_the_wrong_shape_is_retried_then_fails(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue('{"units": []}', '{"facts": "none"}')
    with pytest.raises(LLMError):
        extract_with_llm(client(fake_openai), "text")
    assert len(fake_openai.requests) == 2
