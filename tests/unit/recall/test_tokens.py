"""The token estimate, LLM metering and the per-space usage ledger (no database)."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from graphmem_neo4j.facts.llm_extract import ExtractedUnits
from graphmem_neo4j.insights.controller import ControllerAnswer
from graphmem_neo4j.llm import TokenUsage
from graphmem_neo4j.token_ledger import RecallUsage, UsageLedger, usage_rows
from graphmem_neo4j.tokens import (
    LLMUsage,
    MeteredLLM,
    estimate_tokens,
    layer_of,
    tally,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 0),
        ("   \n\t ", 0),
        ("hello world", 2),
        ("conversation", 2),  # 12 letters: 1 + 11 // 7
        ("Maya: I adopted a dog!", 7),  # 5 words, ':' and '!'
        ("2024-05-04", 6),  # 4 digits → 2, '-', 2 → 1, '-', 2 → 1
        ("1234567", 3),
        ("café", 2),  # a non-ASCII letter run: 1 per 2 characters
        ("東京", 1),
        ("x_y", 3),
    ],
)
def test_estimate(text: str, expected: int) -> None:
    assert estimate_tokens(text) == expected


@given(st.lists(st.text(max_size=40), max_size=8))
def test_the_estimate_is_additive_over_lines(lines: list[str]) -> None:
    # what lets recall add line costs and still meet the budget exactly
    assert estimate_tokens("\n".join(lines)) == sum(estimate_tokens(line) for line in lines)


@given(st.text(max_size=60), st.text(max_size=60))
def test_more_text_never_costs_less(a: str, b: str) -> None:
    assert estimate_tokens(f"{a} {b}") >= estimate_tokens(a)


def test_layer_of_names_the_package_of_the_answer_schema() -> None:
    assert layer_of(ExtractedUnits) == "facts"
    assert layer_of(ControllerAnswer) == "insights"

    class Local(BaseModel):
        x: int

    assert layer_of(Local) == "other"


class Answer(BaseModel):
    ok: bool


class StubLLM:
    """Counts like OpenAICompatibleLLM: each response is added; an invalid one also fails."""

    model = "stub"

    def __init__(self, responses: list[tuple[int, int, bool]]) -> None:
        self.usage = TokenUsage()
        self.responses = list(responses)

    def complete_json(self, *, system: str, user: str, schema: type[BaseModel]) -> BaseModel:
        while self.responses:
            prompt, completion, valid = self.responses.pop(0)
            self.usage.add(prompt, completion)
            if valid:
                return schema.model_validate({"ok": True})
            self.usage.failed()
        raise RuntimeError("no answer")


def test_metered_llm_records_every_response_with_its_layer() -> None:
    seen: list[tuple[str, LLMUsage]] = []
    inner = StubLLM([(10, 3, False), (12, 4, True)])
    llm = MeteredLLM(inner, lambda space, layer, usage: seen.append((f"{space}/{layer}", usage)))
    with tally() as counted:
        answer = llm.for_space("s1").complete_json(system="s", user="u", schema=Answer)
    assert isinstance(answer, Answer) and answer.ok
    assert [where for where, _ in seen] == ["s1/other", "s1/other", "s1/other"]
    total = sum((u for _, u in seen), LLMUsage())
    assert total == LLMUsage(calls=2, failures=1, prompt_tokens=22, completion_tokens=7)
    # the client's own counter is unchanged in meaning
    assert inner.usage.as_dict() == {
        "prompt_tokens": 22,
        "completion_tokens": 7,
        "calls": 2,
        "failures": 1,
        "estimated_calls": 0,
    }
    assert llm.usage is inner.usage
    assert counted.usage == total
    inner.responses.append((1, 1, True))
    llm.complete_json(system="s", user="u", schema=Answer)  # unbound: space "" (the default)
    assert seen[-1][0] == "/other"


def test_the_layer_and_space_are_kept_per_thread() -> None:
    seen: list[str] = []
    lock = threading.Lock()

    def record(space: str, layer: str, usage: LLMUsage) -> None:
        with lock:
            seen.append(f"{space}/{layer}")

    class Slow(StubLLM):
        def complete_json(self, *, system: str, user: str, schema: type[BaseModel]) -> BaseModel:
            barrier.wait()  # both calls are in flight at once
            self.usage.add(1, 1)
            return schema.model_construct()

    barrier = threading.Barrier(2)
    llm = MeteredLLM(Slow([]), record)

    spent: dict[str, LLMUsage] = {}

    def ask(space: str, schema: type[BaseModel]) -> None:
        with tally() as counted:
            llm.for_space(space).complete_json(system="", user="", schema=schema)
        spent[space] = counted.usage

    threads = [
        threading.Thread(target=ask, args=(space, schema))
        for space, schema in (("a", ExtractedUnits), ("b", ControllerAnswer))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(seen) == ["a/facts", "b/insights"]
    one_call = LLMUsage(calls=1, prompt_tokens=1, completion_tokens=1)
    assert spent == {"a": one_call, "b": one_call}  # each call counts only its own


def test_a_tally_counts_calls_its_bound_client_makes_on_other_threads() -> None:
    llm = MeteredLLM(StubLLM([(5, 1, True)]), lambda space, layer, usage: None)
    with tally() as counted:
        bound = llm.for_space("s")  # bound inside the call ...
    worker = threading.Thread(  # ... used by a worker thread, as ingestion pipelines do
        target=lambda: bound.complete_json(system="", user="", schema=Answer)
    )
    worker.start()
    worker.join()
    assert counted.usage == LLMUsage(calls=1, prompt_tokens=5, completion_tokens=1)


def test_usage_rows_put_layers_in_fixed_columns() -> None:
    ledger = UsageLedger()
    ledger.add_llm("a", "facts", LLMUsage(1, 0, 100, 20))
    ledger.add_llm("a", "facts", LLMUsage(1, 1, 50, 5))
    ledger.add_llm("a", "mystery", LLMUsage(1, 0, 1, 1))
    ledger.add_recall("a", {"conversation": 300, "facts": 40})
    ledger.add_recall("b", {"insights": 7})
    llm, recall = ledger.drain()
    rows = usage_rows(llm, recall)
    assert rows["a"]["llm_calls"] == 3 and rows["a"]["llm_failures"] == 1
    assert rows["a"]["llm_prompt_tokens"] == 151 and rows["a"]["llm_completion_tokens"] == 26
    assert rows["a"]["llm_tokens_facts"] == 175 and rows["a"]["llm_tokens_other"] == 2
    assert rows["a"]["recall_calls"] == 1 and rows["a"]["recall_tokens_conversation"] == 300
    assert rows["b"]["recall_tokens_insights"] == 7 and rows["b"]["llm_calls"] == 0
    assert ledger.drain() == ({}, {})  # drained once


def test_a_failed_flush_is_restored_for_the_next_one() -> None:
    ledger = UsageLedger()
    ledger.add_llm("a", "facts", LLMUsage(1, 0, 10, 2))
    ledger.add_recall("a", {"facts": 5})
    llm, recall = ledger.drain()
    ledger.add_recall("a", {"facts": 1})
    ledger.restore(llm, recall)
    llm2, recall2 = ledger.drain()
    assert llm2 == {("a", "facts"): LLMUsage(1, 0, 10, 2)}
    assert recall2["a"] == RecallUsage(2, {"facts": 6})


def test_llm_usage_arithmetic() -> None:
    a = LLMUsage(2, 1, 30, 10)
    b = LLMUsage(1, 0, 5, 5)
    assert a + b - b == a
    assert (a + b).total_tokens == 50
    assert a.as_dict()["total_tokens"] == 40
