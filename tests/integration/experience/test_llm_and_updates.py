"""Insights through an LLM (the fake OpenAI-compatible server), its failure modes, and the
updates that must prune what an earlier add wrote."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from graphmem_neo4j.embedder import HashEmbedder
from graphmem_neo4j.errors import LLMError
from graphmem_neo4j.experience.models import Step, Trajectory
from graphmem_neo4j.experience.normalize import normalize_task
from graphmem_neo4j.experience.parsing import parse_file
from graphmem_neo4j.llm import OpenAICompatibleLLM
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings
from tests.fakes.openai_server import FakeOpenAI

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "experience"
ANSWER = json.dumps({"insights": ["Heat it in the microwave."], "insight": "Take, heat, put."})


@pytest.fixture
def llm_memory(
    engine_settings: Settings, hash_embedder: HashEmbedder, fake_openai: FakeOpenAI
) -> Iterator[GraphMemory]:
    llm = OpenAICompatibleLLM(
        model="fake", base_url=fake_openai.base_url, api_key="k", max_retries=0
    )
    with GraphMemory(engine_settings, embedder=hash_embedder, llm=llm) as memory:
        yield memory


def experts() -> list[Trajectory]:
    return parse_file(EXAMPLES / "expert.jsonl", kind="expert")


def test_insights_come_from_the_llm_when_one_is_configured(
    llm_memory: GraphMemory, fake_openai: FakeOpenAI, space: str
) -> None:
    fake_openai.queue(*[ANSWER] * 60)
    report = llm_memory.experience.add(experts(), space=space)
    guidance = llm_memory.experience.retrieve("put a hot apple in fridge", space=space, k=1, t=3)
    assert guidance.tasks[0].insights == ("Heat it in the microwave.",)
    assert guidance.edges and {e.insight for e in guidance.edges} == {"Take, heat, put."}
    # one call per task, one per matched task pair at most
    task_calls = [r for r in fake_openai.requests if "Expert workflow" in str(r["body"])]
    assert len(task_calls) == 5
    assert len(fake_openai.requests) <= 5 + report.similar_edges


def test_a_failing_llm_falls_back_to_templates(
    llm_memory: GraphMemory, fake_openai: FakeOpenAI, space: str
) -> None:
    fake_openai.queue(*[500] * 60)
    llm_memory.experience.add(experts(), space=space)
    guidance = llm_memory.experience.retrieve("put a hot apple in fridge", space=space, k=1)
    assert guidance.tasks[0].insights[-1].startswith("What worked (7 steps)")
    assert fake_openai.requests


def test_with_fallback_off_the_error_surfaces_and_a_rerun_finishes(
    engine_settings: Settings,
    hash_embedder: HashEmbedder,
    fake_openai: FakeOpenAI,
    space: str,
) -> None:
    strict = engine_settings.model_copy(update={"llm_fallback": "error"})
    llm = OpenAICompatibleLLM(model="f", base_url=fake_openai.base_url, api_key="k", max_retries=0)
    with GraphMemory(strict, embedder=hash_embedder, llm=llm) as memory:
        fake_openai.queue(500)
        with pytest.raises(LLMError):
            memory.experience.add(experts(), space=space)
        fake_openai.queue(*[ANSWER] * 60)
        report = memory.experience.add(experts(), space=space)
        assert report.unchanged == 0 and report.replaced == 5
        assert memory.stats(space)["nodes"]["Trajectory"] == 5
        hit = memory.experience.retrieve("put a hot apple in fridge", space=space, k=1)
        assert hit.tasks[0].insights == ("Heat it in the microwave.",)


def potato(ident: str, where: str, kind: str = "expert", swap: str | None = None) -> Trajectory:
    steps = [
        (f"go to {where}", f"On the {where}, you see a potato 1."),
        (f"take potato 1 from {where}", f"You pick up the potato 1 from the {where}."),
        ("go to microwave 1", "The microwave 1 is closed."),
        ("heat potato 1 with microwave 1", "You heat the potato 1 using the microwave 1."),
        ("go to fridge 1", "The fridge 1 is closed."),
        ("put potato 1 in/on fridge 1", "You put the potato 1 in/on the fridge 1."),
    ]
    if swap is not None:
        steps[2] = (swap, steps[2][1])
    reward = 1.0 if kind == "expert" else 0.0
    return Trajectory(
        ident,
        "heat some potato and put it in fridge.",
        kind,  # type: ignore[arg-type]
        reward,
        tuple(Step(a, o) for a, o in steps),
        "You are in a kitchen.",
    )


def test_an_exploration_moves_to_the_expert_closest_to_it(memory: GraphMemory, space: str) -> None:
    tried = potato("try-1", "countertop 3", "exploration", swap="go to stoveburner 1")
    memory.experience.add([potato("e-1", "cabinet 2"), tried], space=space)
    memory.experience.add([potato("e-2", "countertop 3")], space=space)
    diff = json.loads(
        memory.store.read("experience/get_match", {"space": space, "id": "exploration:try-1"})[0][
            "diff_json"
        ]
    )
    assert memory.stats(space)["relationships"]["MATCHED_TO"] == 1
    assert [op["op"] for op in diff["edit_path"]] == ["relabel_node"]


def test_cross_task_edges_follow_the_nearest_neighbours(memory: GraphMemory, space: str) -> None:
    memory.experience.learner.neighbours = 1
    memory.experience.learner.min_similarity = -1.0
    base = potato("e-1", "cabinet 2")
    far = replace(base, id="far", task="warm a potato up, then place it in some cabinet.")
    near = replace(base, id="near", task="heat a potato and put it in fridge.")
    memory.experience.add([base, far], space=space)

    def neighbours_of_base() -> set[str]:
        edges = memory.experience.retrieve(base.task, space=space, k=1, t=5).edges
        return {e.target_text for e in edges if e.source_text == normalize_task(base.task)}

    assert neighbours_of_base() == {normalize_task(far.task)}
    # a changed run of the base task recomputes its edges: the new nearest task wins
    memory.experience.add([near, replace(base, steps=base.steps[:5])], space=space)
    assert neighbours_of_base() == {normalize_task(near.task)}
