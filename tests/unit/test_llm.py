import pytest
from pydantic import BaseModel

from graphmem_neo4j.errors import ConfigError, LLMError
from graphmem_neo4j.llm import OpenAICompatibleLLM, make_llm, parse_json_answer
from graphmem_neo4j.settings import Settings
from tests.fakes.openai_server import FakeOpenAI


class Answer(BaseModel):
    name: str
    count: int


def client(fake: FakeOpenAI, retries: int = 2, timeout: float = 5.0) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM(
        model="fake-model",
        base_url=fake.base_url,
        api_key="k",
        max_retries=retries,
        timeout=timeout,
    )


def test_no_llm_is_the_default() -> None:
    assert make_llm(Settings()) is None


def test_openai_mode_needs_an_endpoint() -> None:
    with pytest.raises(ConfigError):
        make_llm(Settings(llm="openai"))


def test_valid_answer_is_parsed_and_tokens_counted(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue('{"name": "x", "count": 3}')
    llm = client(fake_openai)
    assert llm.complete_json(system="s", user="u", schema=Answer) == Answer(name="x", count=3)
    assert llm.usage.as_dict() == {
        "prompt_tokens": 11,
        "completion_tokens": 7,
        "calls": 1,
        "failures": 0,
    }
    sent = fake_openai.requests[0]["body"]
    assert sent["model"] == "fake-model"
    assert sent["response_format"] == {"type": "json_object"}
    assert fake_openai.requests[0]["auth"] == "Bearer k"


def test_invalid_json_is_retried_with_the_error_shown(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue("not json", '{"name": "x"}', '```json\n{"name": "y", "count": 1}\n```')
    llm = client(fake_openai)
    assert llm.complete_json(system="s", user="u", schema=Answer).name == "y"
    assert len(fake_openai.requests) == 3
    last_messages = fake_openai.requests[-1]["body"]["messages"]
    assert "did not validate" in last_messages[-1]["content"]
    assert llm.usage.calls == 3 and llm.usage.failures == 2


def test_retries_are_bounded(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(500, 500, 500, '{"name": "late", "count": 1}')
    with pytest.raises(LLMError, match="3 attempts"):
        client(fake_openai, retries=2).complete_json(system="s", user="u", schema=Answer)
    assert len(fake_openai.requests) == 3


def test_slow_endpoint_times_out(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(2.0, '{"name": "slow", "count": 1}')
    with pytest.raises(LLMError):
        client(fake_openai, retries=0, timeout=0.5).complete_json(
            system="s", user="u", schema=Answer
        )


def test_fenced_answers_parse() -> None:
    assert parse_json_answer('```json\n{"name":"a","count":2}\n```', Answer).count == 2
