from pathlib import Path

import pytest

from graphmem_neo4j.errors import InputError, UnknownSpace
from graphmem_neo4j.insights.models import RetrievalParams
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.schema import now_ms

from .conftest import graph, task

HEAT = "heat some egg and put it in the countertop"


def test_a_task_becomes_a_query_node_with_its_interaction_graph(
    memory: GraphMemory, space: str
) -> None:
    t = task("t1", HEAT, actions=("go to fridge 1", "take egg 1", "heat egg 1"))
    summary = memory.insights.record_tasks([t], space=space)
    assert (summary.recorded, summary.unchanged) == (1, 0)
    g = graph(memory, space)
    q = g.props("Query", "t1")
    assert (q["text"], q["status"], q["content_hash"]) == (HEAT, "resolved", t.content_hash())
    assert len(q["embedding"]) == 64 and q["recorded_at"] > 0
    steps = sorted(g.ids("InteractionStep"))
    assert steps == ["t1#0", "t1#1", "t1#2"]
    assert [g.props("InteractionStep", s)["action"] for s in steps] == [
        "go to fridge 1",
        "take egg 1",
        "heat egg 1",
    ]
    assert g.edges("HAS_INTERACTION") == {("t1", s) for s in steps}
    assert g.edges("NEXT_INTERACTION") == {("t1#0", "t1#1"), ("t1#1", "t1#2")}


def test_later_queries_link_to_their_nearest_earlier_ones(memory: GraphMemory, space: str) -> None:
    tasks = [
        task("a", "heat some egg and put it in the countertop"),
        task("b", "heat some egg and put it in the fridge"),
        task("c", "find the red book on the shelf"),
        task("d", "heat some egg and put it in the countertop again"),
    ]
    params = RetrievalParams(neighbours=2, neighbour_min_similarity=0.5)
    summary = memory.insights.record_tasks(tasks, space=space, params=params)
    similar = {t.id: [s.id for s in t.similar] for t in summary.tasks}
    assert similar["a"] == []
    assert similar["b"] == ["a"]
    assert similar["d"][0] == "a" and "c" not in similar["d"]
    edges = graph(memory, space).edge_props("SIMILAR_QUERY")
    assert {(e["source"], e["target"]) for e in edges} == {
        (t, s) for t, targets in similar.items() for s in targets
    }
    assert all(0.5 <= e["similarity"] <= 1.0 for e in edges)


def test_recording_twice_stores_once(memory: GraphMemory, space: str) -> None:
    tasks = [task("a", HEAT), task("b", "cool some apple", status="failed")]
    memory.insights.record_tasks(tasks, space=space)
    before = memory.stats(space)
    again = memory.insights.record_tasks(tasks, space=space)
    assert (again.recorded, again.unchanged) == (0, 2)
    assert memory.stats(space) == before


def test_a_changed_task_under_a_stored_id_is_refused_before_any_write(
    memory: GraphMemory, space: str
) -> None:
    memory.insights.record_tasks([task("a", HEAT)], space=space)
    before = memory.stats(space)
    with pytest.raises(InputError) as caught:
        memory.insights.record_tasks(
            [task("new", "a new task"), task("a", "something else")],
            space=space,
            source="f.jsonl",
            lines={"new": 1, "a": 2},
        )
    assert (caught.value.source, caught.value.line, caught.value.field) == ("f.jsonl", 2, "id")
    assert memory.stats(space) == before


def test_a_bad_task_stores_nothing(memory: GraphMemory, space: str) -> None:
    memory.ensure_space(space)
    with pytest.raises(InputError, match="query"):
        memory.insights.record_tasks([task("ok", HEAT), task("bad", "  ")], space=space)
    assert memory.stats(space)["nodes"] == {"Space": 1}


def test_cypher_looking_text_is_stored_verbatim(memory: GraphMemory, space: str) -> None:
    text = "MATCH (n) DETACH DELETE n // '}) RETURN 1"
    memory.insights.record_tasks([task("a", HEAT), task("b", text)], space=space)
    g = graph(memory, space)
    assert g.props("Query", "b")["text"] == text
    assert g.ids("Query") == {"a", "b"}


def test_an_interrupted_recording_is_finished_by_the_next_run(
    memory: GraphMemory, space: str
) -> None:
    """Simulate a kill after the first statement: the node and its retrieval exist, no steps,
    no embedding. The task is invisible to retrieval until the rerun completes it."""
    memory.insights.record_tasks([task("a", HEAT)], space=space)
    half = task("b", HEAT + " now", actions=("x", "y"))
    memory.store.write(
        "insights/write_task",
        {
            "space": space,
            "id": "b",
            "query": half.query,
            "status": half.status,
            "answer": None,
            "feedback": None,
            "content_hash": half.content_hash(),
            "task_key": "heat",
            "task_type": None,
            "step_count": 2,
            "k": 5,
            "b": 5,
            "lambda": 1.0,
            "now": now_ms(),
            "retrieved": [],
        },
    )
    vector = memory.embedder.embed([half.query])[0]
    seen = memory.insights.retrieve_by_vector(vector, space=space)
    assert [q.id for q in seen.queries] == ["a"]
    summary = memory.insights.record_tasks([half], space=space)
    assert summary.tasks[0].outcome == "recorded"
    g = graph(memory, space)
    assert g.props("Query", "b")["recorded_at"] > 0
    assert g.edges("NEXT_INTERACTION") >= {("b#0", "b#1")}
    seen = memory.insights.retrieve_by_vector(vector, space=space)
    assert {q.id for q in seen.queries} == {"a", "b"}


def test_reads_of_an_unknown_space_are_refused(memory: GraphMemory, space: str) -> None:
    memory.init()
    with pytest.raises(UnknownSpace):
        memory.insights.retrieve("anything", space=space)
    with pytest.raises(InputError, match="invalid space"):
        memory.insights.record_tasks([task("a", HEAT)], space="bad space!")


def test_tasks_file_round_trip(memory: GraphMemory, space: str, tmp_path: Path) -> None:
    from graphmem_neo4j.insights.parsing import read_tasks

    examples = Path(__file__).resolve().parents[3] / "examples" / "tasks.jsonl"
    parsed = read_tasks(examples)
    summary = memory.insights.record_tasks(parsed.tasks, space=space)
    assert summary.recorded == len(parsed.tasks) > 0
    view = memory.insights.get_task(parsed.tasks[0].id, space=space)
    assert view.query == parsed.tasks[0].query
    assert view.steps == parsed.tasks[0].steps
    assert view.plan is None and view.feedback_at is None
