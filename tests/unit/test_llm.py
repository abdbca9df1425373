import pytest
from pydantic import BaseModel, Field

from graphmem_neo4j.errors import ConfigError, LLMError
from graphmem_neo4j.llm import OpenAICompatibleLLM, make_llm, parse_json_answer, strict_schema
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.tokens import estimate_tokens
from tests.fakes.openai_server import FakeOpenAI, format_kind


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
        "estimated_calls": 0,
    }
    sent = fake_openai.requests[0]["body"]
    assert sent["model"] == "fake-model"
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["max_tokens"] == 1024
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
    # 503, not 500: a 500 before any answer reads as "this response_format is refused"
    fake_openai.queue(503, 503, 503, '{"name": "late", "count": 1}')
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


# --- structured outputs ----------------------------------------------------------------------
class Loose(BaseModel):
    """A field with a default is optional: OpenAI's strict mode cannot say that."""

    name: str
    tags: list[str] = []


class Bounded(BaseModel):
    format: str = Field(max_length=10)  # a field named like a keyword
    items: list[int] = Field(min_length=1)


def test_the_answer_schema_is_sent_strict_when_every_field_is_required(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.queue('{"name": "x", "count": 3}', '{"name": "y"}')
    llm = client(fake_openai)
    llm.complete_json(system="s", user="u", schema=Answer)
    llm.complete_json(system="s", user="u", schema=Loose)
    strict, loose = (r["body"]["response_format"] for r in fake_openai.requests)
    assert strict["type"] == loose["type"] == "json_schema"
    assert strict["json_schema"]["name"] == "Answer" and strict["json_schema"]["strict"] is True
    assert strict["json_schema"]["schema"]["additionalProperties"] is False
    assert loose["json_schema"]["strict"] is False
    assert loose["json_schema"]["schema"] == Loose.model_json_schema()


def test_strict_schema_drops_what_strict_mode_rejects_but_keeps_fields() -> None:
    body = strict_schema(Bounded)
    assert body is not None
    assert set(body["properties"]) == {"format", "items"}  # the field called "format" stays
    assert "maxLength" not in body["properties"]["format"]
    assert "minItems" not in body["properties"]["items"]
    assert strict_schema(Loose) is None
    # the schema pydantic validates with is untouched
    assert Bounded.model_json_schema()["properties"]["format"]["maxLength"] == 10


def test_a_refused_json_schema_falls_back_to_the_schema_in_json_object_once(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.refused_formats = {"json_schema"}  # what llama.cpp's server does
    fake_openai.queue(
        '{"name": "x", "count": 1}', '{"name": "y", "count": 2}', '{"format": "a", "items": [1]}'
    )
    llm = client(fake_openai)
    assert llm.complete_json(system="s", user="u", schema=Answer).name == "x"
    assert llm.complete_json(system="s", user="u", schema=Answer).name == "y"
    kinds = [format_kind(r["body"]["response_format"]) for r in fake_openai.requests]
    # one refused request, then the form that worked, kept for the next call
    assert kinds == ["json_schema", "json_object_schema", "json_object_schema"]
    assert fake_openai.requests[1]["body"]["response_format"]["schema"] == (
        Answer.model_json_schema()
    )
    # a grammar is built from that schema: no bounded repetition (pydantic checks maxLength)
    assert llm.complete_json(system="s", user="u", schema=Bounded) is not None
    sent = fake_openai.requests[3]["body"]["response_format"]["schema"]
    assert (
        "maxLength" not in sent["properties"]["format"]
        and "minItems" in sent["properties"]["items"]
    )
    assert llm.format == "json_object_schema"
    assert llm.usage.calls == 3 and llm.usage.failures == 0


def test_an_endpoint_refusing_schemas_gets_plain_json_object(fake_openai: FakeOpenAI) -> None:
    fake_openai.refused_formats = {"json_schema", "json_object_schema"}
    fake_openai.queue('{"name": "x", "count": 1}', '{"name": "y", "count": 2}')
    llm = client(fake_openai)
    llm.complete_json(system="s", user="u", schema=Answer)
    llm.complete_json(system="s", user="u", schema=Answer)
    kinds = [format_kind(r["body"]["response_format"]) for r in fake_openai.requests]
    assert kinds == ["json_schema", "json_object_schema", "json_object", "json_object"]


def test_after_a_form_worked_a_server_error_is_retried_not_a_step_down(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.queue('{"name": "x", "count": 1}', 500, '{"name": "y", "count": 2}')
    llm = client(fake_openai)
    llm.complete_json(system="s", user="u", schema=Answer)
    assert llm.complete_json(system="s", user="u", schema=Answer).name == "y"
    kinds = [format_kind(r["body"]["response_format"]) for r in fake_openai.requests]
    assert kinds == ["json_schema"] * 3
    assert llm.usage.failures == 1


def test_a_pinned_form_is_never_changed(fake_openai: FakeOpenAI) -> None:
    fake_openai.refused_formats = {"json_schema"}
    llm = OpenAICompatibleLLM(
        model="m", base_url=fake_openai.base_url, api_key=None, max_retries=1,
        response_format="json_schema",
    )  # fmt: skip
    with pytest.raises(LLMError, match="2 attempts"):
        llm.complete_json(system="s", user="u", schema=Answer)
    assert len(fake_openai.requests) == 2


def test_tokens_are_estimated_and_marked_when_the_endpoint_reports_none(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.report_usage = False
    fake_openai.queue("not json", '{"name": "a fairly long name", "count": 12345}')
    llm = client(fake_openai)
    llm.complete_json(system="You answer.", user="Give me a name.", schema=Answer)
    usage = llm.usage
    assert usage.calls == 2 and usage.estimated_calls == 2 and usage.failures == 1
    # system (2 + 4) and user (5 + 4) on each call, the retry's messages on the second
    assert usage.prompt_tokens > 2 * 15
    assert usage.completion_tokens == estimate_tokens("not json") + estimate_tokens(
        '{"name": "a fairly long name", "count": 12345}'
    )
