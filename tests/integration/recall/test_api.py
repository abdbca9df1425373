"""GraphMemory's one-call-per-action API: typed and dict inputs, idempotent writes, token
accounting (LLM calls through the fake OpenAI-compatible server)."""

from __future__ import annotations

import json

import pytest

from graphmem_neo4j.conversation.models import TurnInput
from graphmem_neo4j.errors import InputError, NotFound
from graphmem_neo4j.facts.models import FactInput
from graphmem_neo4j.insights.models import Step, TaskRecord
from graphmem_neo4j.llm import OpenAICompatibleLLM
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.tokens import LLMUsage
from tests.fakes.openai_server import FakeOpenAI

from .conftest import EXAMPLES, nodes

RUN = {
    "id": "run-1",
    "task": "put a hot apple in fridge",
    "reward": 1.0,
    "steps": [
        {"action": "go to microwave 1", "observation": "The microwave 1 is closed."},
        {"action": "heat apple 1 with microwave 1", "observation": "You heat the apple 1."},
    ],
}


def test_every_action_is_one_call_and_idempotent(memory: GraphMemory, space: str) -> None:
    turns = memory.add_turns(
        [
            TurnInput("s1", "t1", "Ann", "I moved to Oslo."),
            {"role": "assistant", "content": "Nice!", "session": "s1", "turn_id": "t2"},
        ],
        space=space,
    )
    assert turns.turns_written == 2
    facts = memory.add_facts(
        [
            FactInput(subject="Ann", relation="lives_in", object="Oslo", category="location"),
            {"subject": "Ann", "relation": "works_at", "object": "Equinor", "category": "org"},
        ],
        space=space,
    )
    assert facts.counts()["created"] == 2
    task = memory.record_task(
        {
            "id": "task-1",
            "query": "heat an apple",
            "status": "resolved",
            "steps": [{"action": "heat apple 1 with microwave 1", "observation": "hot"}],
        },
        space=space,
    )
    assert task.outcome == "recorded"
    run = memory.add_trajectory(RUN, kind="expert", space=space)
    assert run.added == 1
    judged = memory.feedback("task-1", space=space)
    assert judged.applied and judged.created  # the offline controller adds an insight

    assert memory.add_turns([TurnInput("s1", "t1", "Ann", "I moved to Oslo.")], space=space)
    again = memory.add_turns([TurnInput("s1", "t1", "Ann", "I moved to Oslo.")], space=space)
    assert again.turns_written == 0
    assert (
        memory.add_facts(
            [{"subject": "Ann", "relation": "works_at", "object": "Equinor", "category": "org"}],
            space=space,
        ).counts()["unchanged"]
        == 1
    )
    assert (
        memory.record_task(
            TaskRecord(
                "task-1",
                "heat an apple",
                "resolved",
                (Step("heat apple 1 with microwave 1", "hot"),),
            ),
            space=space,
        ).outcome
        == "unchanged"
    )
    assert memory.add_trajectory({**RUN, "kind": "expert"}, space=space).unchanged == 1
    assert memory.feedback("task-1", space=space).already_applied

    stored = nodes(memory, space)
    labels = {label for label, _ in stored}
    assert {"Turn", "MemoryUnit", "Query", "Insight", "Trajectory", "Task"} <= labels


def test_the_default_space_comes_from_the_settings(memory: GraphMemory, space: str) -> None:
    settings = memory.settings.model_copy(update={"space": space})
    with GraphMemory(settings, embedder=memory.embedder) as scoped:  # its own connection
        scoped.add_turns([{"speaker": "Bo", "text": "hello there"}])
        assert scoped.recall("hello there", budget_tokens=100).space == space
    assert space in {row["id"] for row in memory.spaces()}


def test_bad_inputs_store_nothing(memory: GraphMemory, space: str) -> None:
    with pytest.raises(InputError) as caught:
        memory.add_turns(
            [{"speaker": "A", "text": "ok"}, {"speaker": "B", "text": ""}], space=space
        )
    assert (caught.value.line, caught.value.field) == (2, "text")
    with pytest.raises(InputError) as caught:
        memory.record_task({"id": "t", "query": "q", "status": "won"}, space=space)
    assert caught.value.field == "status"
    with pytest.raises(InputError) as caught:
        memory.add_trajectory({**RUN, "reward": 3}, kind="expert", space=space)
    assert caught.value.field == "reward"
    assert space not in {row["id"] for row in memory.spaces()}
    memory.add_turns([{"speaker": "A", "text": "ok"}], space=space)
    with pytest.raises(NotFound):
        memory.feedback("never-recorded", space=space)


def test_recall_tokens_add_up_in_the_space(memory: GraphMemory, space: str) -> None:
    memory.add_turns([{"speaker": "Ann", "text": "I adopted a kitten named Pixel."}], space=space)
    first = memory.recall("What did Ann adopt?", space=space, budget_tokens=200)
    second = memory.recall("Pixel the kitten", space=space, budget_tokens=200)
    totals = memory.token_usage(space)
    assert totals.recall.calls == 2
    assert totals.recall.tokens["conversation"] == (
        first.tokens_by_layer["conversation"] + second.tokens_by_layer["conversation"]
    )
    assert totals.recall.total_tokens == first.tokens_used + second.tokens_used > 0
    assert totals.llm == LLMUsage()  # no LLM configured: nothing spent


def llm_memory(memory: GraphMemory, fake: FakeOpenAI) -> GraphMemory:
    """The same graph through its own connection, with an LLM."""
    llm = OpenAICompatibleLLM(model="fake", base_url=fake.base_url, api_key="k", max_retries=1)
    return GraphMemory(memory.settings, embedder=memory.embedder, llm=llm)


def test_llm_tokens_are_counted_per_space_and_layer(
    memory: GraphMemory, space: str, fake_openai: FakeOpenAI
) -> None:
    units = {
        "facts": [
            {"subject": "Ann", "relation": "lives_in", "object": "Oslo", "category": "location"}
        ]
    }
    fake_openai.queue("not json", json.dumps(units))  # one retry: two responses counted
    mem = llm_memory(memory, fake_openai)
    report = mem.add_chat_log(EXAMPLES / "chat_log.jsonl", space=space, outcome={})
    assert report.facts_by == "llm"
    assert report.facts is not None and report.facts.counts()["created"] == 1
    # the chat log's task goes through the insights controller: the fake's default answer
    # "{}" does not validate, so the controller falls back to its rules after its attempts
    calls = len(fake_openai.requests)
    assert report.llm.calls == calls
    assert report.llm.prompt_tokens == 11 * calls and report.llm.completion_tokens == 7 * calls
    totals = mem.token_usage(space)
    assert totals.llm == report.llm
    assert totals.llm_by_layer["facts"] == 2 * (11 + 7)
    assert sum(totals.llm_by_layer.values()) == report.llm.total_tokens
    mem.close()


def test_llm_tokens_spent_outside_the_api_are_counted_on_close(
    memory: GraphMemory, space: str, fake_openai: FakeOpenAI
) -> None:
    units = {
        "facts": [
            {"subject": "Bo", "relation": "likes", "object": "jazz", "category": "preference"}
        ]
    }
    fake_openai.queue(json.dumps(units))
    mem = llm_memory(memory, fake_openai)
    mem.facts.add_text("Bo likes jazz.", space=space)  # a layer service, not the API
    assert memory.token_usage(space).llm.calls == 0  # not written yet
    mem.close()
    totals = memory.token_usage(space)
    assert totals.llm.calls == 1 and totals.llm_by_layer == {"facts": 18}
