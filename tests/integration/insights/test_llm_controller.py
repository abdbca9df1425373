"""The LLM controller's wiring, against the fake OpenAI-compatible server."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from graphmem_neo4j.errors import LLMError
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings
from tests.fakes.openai_server import FakeOpenAI

from .conftest import graph, task


@pytest.fixture
def llm_memory(
    memory: GraphMemory, fake_openai: FakeOpenAI
) -> Iterator[tuple[GraphMemory, FakeOpenAI]]:
    settings = memory.settings.model_copy(
        update={
            "llm": "openai",
            "llm_base_url": fake_openai.base_url,
            "llm_model": "fake-model",
            "llm_max_retries": 1,
        }
    )
    with GraphMemory(settings, store=memory.store, embedder=memory.embedder) as mem:
        yield mem, fake_openai


def prepare(memory: GraphMemory, space: str) -> tuple[str, str]:
    memory.insights.record_tasks([task("seed", "heat some egg", actions=())], space=space)
    a = memory.insights.add_insight("Heat food in the microwave.", space=space, evidence=["seed"])
    b = memory.insights.add_insight("Eggs break easily.", space=space, evidence=["seed"])
    memory.insights.record_tasks(
        [task("t", "heat some egg again", status="failed", feedback="The egg exploded.")],
        space=space,
    )
    return a.id, b.id


def answer(edits: list[tuple[str, str, str | None]], add: str | None = None) -> str:
    return json.dumps(
        {
            "insight_edits": [
                {"insight_id": i, "operation": op, "revised_insight_text": text}
                for i, op, text in edits
            ],
            "add_new_insight": {"decision": add is not None, "new_insight_text": add},
        }
    )


def test_the_llms_decisions_are_applied(
    llm_memory: tuple[GraphMemory, FakeOpenAI], space: str
) -> None:
    memory, fake = llm_memory
    a, b = prepare(memory, space)
    fake.queue(
        answer(
            [(a, "REVISE", "Heat eggs gently, never whole in the microwave."), (b, "KEEP", None)],
            add="Pierce eggs before heating them.",
        )
    )
    result = memory.insights.feedback("t", space=space)
    assert result.plan.decided_by == "controller:llm:fake-model"
    assert {e.insight_id: e.operation for e in result.plan.edits} == {a: "REVISE", b: "KEEP"}
    assert len(result.created) == 2
    g = graph(memory, space)
    texts = {g.props("Insight", i)["text"] for i in result.created}
    assert texts == {
        "Heat eggs gently, never whole in the microwave.",
        "Pierce eggs before heating them.",
    }
    assert g.props("Insight", a)["active"] is False
    # the request carried the paper's prompt and the retrieved insights
    (request,) = fake.requests
    messages = request["body"]["messages"]
    assert messages[0]["content"].startswith("You are a graph memory controller.")
    assert a in messages[1]["content"] and "The egg exploded." in messages[1]["content"]
    # structured output: the answer's JSON schema, strict (every field of it is required)
    answer_format = request["body"]["response_format"]
    assert answer_format["type"] == "json_schema" and answer_format["json_schema"]["strict"]
    assert set(answer_format["json_schema"]["schema"]["required"]) == {
        "insight_edits",
        "add_new_insight",
    }
    trail = memory.insights.history(a, space=space)
    assert trail.edits[-1].actor == "controller:llm:fake-model"


def test_hallucinated_ids_are_rejected_and_asked_again(
    llm_memory: tuple[GraphMemory, FakeOpenAI], space: str
) -> None:
    memory, fake = llm_memory
    a, b = prepare(memory, space)
    before = memory.stats(space)
    fake.queue(
        answer([(a, "KEEP", None), ("ins-invented", "ARCHIVE", None)]),
        "not json at all",
        answer([(a, "KEEP", None), (b, "ARCHIVE", None)]),
    )
    result = memory.insights.feedback("t", space=space)
    assert {e.insight_id: e.operation for e in result.plan.edits} == {a: "KEEP", b: "ARCHIVE"}
    assert len(fake.requests) == 3
    assert (
        "'ins-invented' is not one of the retrieved insights"
        in (fake.requests[1]["body"]["messages"][1]["content"])
    )
    assert memory.stats(space)["nodes"]["Insight"] == before["nodes"]["Insight"]


def test_an_llm_that_never_answers_properly_falls_back_to_the_rules(
    llm_memory: tuple[GraphMemory, FakeOpenAI], space: str
) -> None:
    memory, fake = llm_memory
    a, _ = prepare(memory, space)
    fake.queue(*[answer([("nope", "KEEP", None)])] * 3)
    result = memory.insights.feedback("t", space=space)
    assert len(fake.requests) == 3
    assert result.plan.decided_by.startswith("controller:offline (LLM failed:")
    assert {e.operation for e in result.plan.edits} <= {"REVISE", "ARCHIVE", "PENALIZE"}
    assert memory.insights.history(a, space=space).edits[-1].actor.startswith("controller:offline")


def test_with_fallback_off_the_failure_is_an_error_and_nothing_changes(
    llm_memory: tuple[GraphMemory, FakeOpenAI], space: str
) -> None:
    memory, fake = llm_memory
    prepare(memory, space)
    strict: Settings = memory.settings.model_copy(update={"llm_fallback": "error"})
    with GraphMemory(strict, store=memory.store, embedder=memory.embedder) as mem:
        before = mem.stats(space)
        fake.queue(500, 500, 500)
        with pytest.raises(LLMError):
            mem.insights.feedback("t", space=space)
        assert mem.stats(space) == before
        assert mem.insights.pending_feedback(space=space) == ["seed", "t"]


def test_an_llm_add_that_repeats_an_active_insight_is_dropped(
    llm_memory: tuple[GraphMemory, FakeOpenAI], space: str
) -> None:
    memory, fake = llm_memory
    a, b = prepare(memory, space)
    fake.queue(answer([(a, "KEEP", None), (b, "KEEP", None)], add="Heat food in the microwave."))
    result = memory.insights.feedback("t", space=space)
    assert not result.plan.add.decision
    assert a in result.plan.add.reason
    assert result.created == ()
