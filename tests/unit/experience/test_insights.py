import json

import pytest

from graphmem_neo4j.experience.diff import diff_graphs
from graphmem_neo4j.experience.graph import abstract_graph, trajectory_graph
from graphmem_neo4j.experience.insights import (
    ComparedPair,
    llm_cross_insight,
    llm_task_insights,
    pair_insights,
    render_workflow,
    template_cross_insight,
    template_task_insights,
)
from graphmem_neo4j.llm import OpenAICompatibleLLM
from tests.fakes.openai_server import FakeOpenAI

from .helpers import run

EXPERT = run(
    ("go to countertop 1", "On the countertop 1, you see a mug 1."),
    ("take mug 1 from countertop 1", "You pick up the mug 1 from the countertop 1."),
    ("go to sinkbasin 1", "On the sinkbasin 1, you see nothing."),
    ("clean mug 1 with sinkbasin 1", "You clean the mug 1 using the sinkbasin 1."),
    task="put a clean mug in cabinet",
)
ATTEMPT = run(
    ("go to countertop 1", "On the countertop 1, you see a mug 1."),
    ("take mug 1 from countertop 1", "You pick up the mug 1 from the countertop 1."),
    ("go to fridge 1", "On the sinkbasin 1, you see nothing."),
    ("clean mug 1 with sinkbasin 1", "Nothing happens."),
    task="put a clean mug in cabinet",
    kind="exploration",
    reward=0.0,
)


def compared(attempt=ATTEMPT, expert=EXPERT) -> ComparedPair:  # type: ignore[no-untyped-def]
    graph = trajectory_graph(attempt)
    return ComparedPair(attempt, graph, expert, diff_graphs(graph, trajectory_graph(expert)))


def test_corrections_name_the_observation_and_both_actions() -> None:
    lines = pair_insights(compared())
    assert lines[0] == (
        'After "you pick up the mug 1 from the countertop 1.", do "go to sinkbasin 1" instead '
        'of "go to fridge 1".'
    )
    assert lines[-1].startswith("Keep what the attempt that failed got right: go to countertop 1")


def test_failed_attempts_and_skipped_steps() -> None:
    attempt = run(
        ("go to countertop 1", "On the countertop 1, you see a mug 1."),
        ("open countertop 1", "Nothing happens."),
        ("take mug 1 from countertop 1", "You pick up the mug 1 from the countertop 1."),
        ("clean mug 1 with sinkbasin 1", "You clean the mug 1 using the sinkbasin 1."),
        kind="exploration",
        reward=0.0,
    )
    lines = pair_insights(compared(attempt))
    assert any(line.startswith('"open countertop 1" does nothing here') for line in lines)
    assert any(line.startswith('Do not skip "go to sinkbasin 1"') for line in lines)


def test_task_insights_end_with_what_worked() -> None:
    insights = template_task_insights(EXPERT, [compared()], [ATTEMPT])
    assert insights.source == "template"
    assert insights.workflow == tuple(s.action for s in EXPERT.steps)
    assert insights.insights[-1] == (
        "What worked (4 steps): go to countertop 1 → take mug 1 from countertop 1 → "
        "go to sinkbasin 1 → clean mug 1 with sinkbasin 1."
    )


def test_without_an_expert_a_successful_attempt_is_the_workflow() -> None:
    won = run(("go to a 1", "ok"), ("open a 1", "Nothing happens."), kind="exploration")
    lost = run(("go to b 1", "ok"), kind="exploration", reward=0.25)
    assert template_task_insights(None, [], [won, lost]).workflow == ("go to a 1",)
    only_lost = template_task_insights(None, [], [lost])
    assert only_lost.workflow == ()
    assert only_lost.insights == ("No successful run stored yet; the best attempt scored 0.25.",)


def test_workflow_rendering_joins_runs_of_go_to_and_cuts_the_tail() -> None:
    actions = ["go to shelf 1", "go to shelf 2", "take pen 1 from shelf 2", "go to desk 1"]
    assert render_workflow(actions) == (
        "go to shelf 1, shelf 2 → take pen 1 from shelf 2 → go to desk 1"
    )
    assert render_workflow([f"open drawer {i}" for i in range(5)], limit=2) == (
        "open drawer 0 → open drawer 1 → … (+3 more)"
    )


def test_cross_task_insight_from_abstract_experts() -> None:
    other = run(
        ("go to countertop 2", "On the countertop 2, you see a cup 1."),
        ("take cup 1 from countertop 2", "You pick up the cup 1 from the countertop 2."),
        ("go to sinkbasin 1", "On the sinkbasin 1, you see nothing."),
        ("clean cup 1 with sinkbasin 1", "You clean the cup 1 using the sinkbasin 1."),
        task="clean some cup and put it in drawer",
    )
    common = diff_graphs(abstract_graph(EXPERT), abstract_graph(other)).common_edges
    insight = template_cross_insight(EXPERT.task, other.task, common)
    assert insight.workflow == (
        "go to countertop",
        "take <1> from countertop",
        "go to sinkbasin",
        "clean <1> with sinkbasin",
    )
    assert insight.shared_edges == 4
    assert "share this workflow: go to countertop → take <1> from countertop" in insight.insight


@pytest.fixture
def llm(fake_openai: FakeOpenAI) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM(model="fake", base_url=fake_openai.base_url, api_key="k")


def test_llm_insights_get_the_edit_path_and_common_subgraph(
    llm: OpenAICompatibleLLM, fake_openai: FakeOpenAI
) -> None:
    fake_openai.queue(json.dumps({"insights": ["Clean the mug at the sinkbasin, not the fridge."]}))
    result = llm_task_insights(llm, EXPERT.task, EXPERT, [compared()])
    assert result.insights == ("Clean the mug at the sinkbasin, not the fridge.",)
    assert result.source == "llm" and result.workflow == tuple(s.action for s in EXPERT.steps)
    prompt = fake_openai.requests[0]["body"]["messages"][1]["content"]
    assert "relabel_node: go to fridge 1 -> go to sinkbasin 1" in prompt
    assert "Common subgraph (correct workflow to keep): go to countertop 1" in prompt


def test_llm_cross_insight_and_retry_on_invalid_json(
    llm: OpenAICompatibleLLM, fake_openai: FakeOpenAI
) -> None:
    fake_openai.queue("not json", json.dumps({"insight": "Take it, clean it at the sinkbasin."}))
    common = diff_graphs(abstract_graph(EXPERT), abstract_graph(EXPERT)).common_edges
    result = llm_cross_insight(llm, "a", "b", common)
    assert result.insight == "Take it, clean it at the sinkbasin." and result.source == "llm"
    assert len(fake_openai.requests) == 2
    assert "clean <1> with sinkbasin" in fake_openai.requests[0]["body"]["messages"][1]["content"]
