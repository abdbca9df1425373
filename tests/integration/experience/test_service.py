"""The experience service on a real engine: storing graphs, insights, cross-task edges,
idempotence, replacement, retrieval, diff by id, and export/import."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from graphmem_neo4j.embedder import Embedder
from graphmem_neo4j.errors import InputError, NotFound, UnknownSpace
from graphmem_neo4j.experience.graph import trajectory_graph
from graphmem_neo4j.experience.models import Step, Trajectory
from graphmem_neo4j.experience.parsing import parse_file
from graphmem_neo4j.experience.service import task_id
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import export_space, import_dump, space_digest
from graphmem_neo4j.settings import Settings

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "experience"


def load(name: str, kind: str) -> list[Trajectory]:
    return parse_file(EXAMPLES / name, kind=kind)  # type: ignore[arg-type]


def nodes(memory: GraphMemory, space: str) -> dict[str, int]:
    counts: dict[str, int] = memory.stats(space)["nodes"]
    return counts


def test_adding_experts_stores_their_decision_graphs(memory: GraphMemory, space: str) -> None:
    experts = load("expert.jsonl", "expert")
    report = memory.experience.add(experts, space=space)
    graphs = [trajectory_graph(t) for t in experts]
    assert (report.added, report.unchanged, report.replaced) == (5, 0, 0)
    assert report.actions == sum(len(g.nodes) for g in graphs)
    assert report.edges == sum(len(g.edges) for g in graphs)
    stats = memory.stats(space)
    assert stats["nodes"] == {"Space": 1, "Task": 5, "Trajectory": 5, "Action": report.actions}
    assert stats["relationships"]["NEXT_ACTION"] == report.edges
    assert stats["relationships"]["OF_TASK"] == 5
    assert stats["relationships"]["SIMILAR_TASK"] == report.similar_edges > 0


def test_adding_the_same_runs_twice_stores_them_once(memory: GraphMemory, space: str) -> None:
    memory.experience.add(load("expert.jsonl", "expert"), space=space)
    memory.experience.add(load("exploration.jsonl", "exploration"), space=space)
    before = space_digest(memory, space)
    again = memory.experience.add(load("exploration.jsonl", "exploration"), space=space)
    assert (again.added, again.unchanged, again.actions) == (0, 2, 0)
    assert space_digest(memory, space).sha256 == before.sha256


def test_explorations_are_matched_and_become_task_insights(memory: GraphMemory, space: str) -> None:
    memory.experience.add(load("expert.jsonl", "expert"), space=space)
    report = memory.experience.add(load("exploration.jsonl", "exploration"), space=space)
    assert report.matched_pairs == 2
    stats = memory.stats(space)
    assert stats["relationships"]["MATCHED_TO"] == 2
    guidance = memory.experience.retrieve("put a hot apple in fridge", space=space, k=1, t=0)
    (task,) = guidance.tasks
    assert task.text == "put a hot apple in fridge" and task.trajectories == 2
    assert task.insights[0] == (
        'After "you pick up the apple 1 from the countertop 2.", do "go to microwave 1" '
        'instead of "go to stoveburner 1".'
    )
    assert task.insights[-1].startswith("What worked (7 steps): go to countertop 2")
    stored = memory.experience.diff("hot-apple-1", "hot-apple-1", space=space)
    assert [op.op for op in stored.edit_path].count("relabel_node") == 2


def test_retrieval_returns_tasks_edges_and_guidance(memory: GraphMemory, space: str) -> None:
    memory.experience.add(load("expert.jsonl", "expert"), space=space)
    guidance = memory.experience.retrieve("put a clean mug in coffeemachine.", space=space, k=2)
    assert guidance.tasks[0].text == "put a clean mug in coffeemachine"
    assert guidance.tasks[0].score == pytest.approx(1.0, abs=1e-4)
    assert guidance.tasks[0].score >= guidance.tasks[1].score
    assert guidance.edges and all(
        guidance.tasks[0].id in (e.source, e.target) or guidance.tasks[1].id in (e.source, e.target)
        for e in guidance.edges
    )
    assert guidance.roles == {"mug": "<1>", "coffeemachine": "<2>"}
    assert guidance.text.startswith("Experience from tasks similar to: put a clean mug")
    assert "Workflows shared by similar tasks" in guidance.text
    # more than the space holds: the exact scan fills in what the shared index misses
    assert len(memory.experience.retrieve("mug", space=space, k=10).tasks) == 5


def test_cross_task_edges_carry_the_shared_workflow(memory: GraphMemory, space: str) -> None:
    memory.experience.add(load("expert.jsonl", "expert"), space=space)
    guidance = memory.experience.retrieve(
        "heat some potato and put it in fridge", space=space, k=1, t=5
    )
    pair = {"heat some potato and put it in fridge", "put a hot apple in fridge"}
    edge = next(e for e in guidance.edges if {e.source_text, e.target_text} == pair)
    assert edge.workflow == (
        "go to countertop",
        "take <1> from countertop",
        "go to microwave",
        "heat <1> with microwave",
        "go to <2>",
        "open <2>",
    )
    assert "share this workflow" in edge.insight


def test_a_changed_run_replaces_the_old_one(memory: GraphMemory, space: str) -> None:
    (first, *_) = load("expert.jsonl", "expert")
    memory.experience.add([first], space=space)
    shorter = replace(first, steps=first.steps[:2], reward=1.0)
    report = memory.experience.add([shorter], space=space)
    assert (report.replaced, report.added) == (1, 0)
    assert nodes(memory, space)["Action"] == len(trajectory_graph(shorter).nodes)
    moved = replace(shorter, task="put a dirty mug in coffeemachine")
    memory.experience.add([moved], space=space)
    assert nodes(memory, space)["Task"] == 1
    hit = memory.experience.retrieve("put a dirty mug in coffeemachine", space=space, k=5)
    assert [t.text for t in hit.tasks] == ["put a dirty mug in coffeemachine"]
    assert hit.tasks[0].id == task_id(moved.task)


def test_bad_input_stores_nothing(memory: GraphMemory, space: str, tmp_path: Path) -> None:
    good = (EXAMPLES / "expert.jsonl").read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([*good, '{"id": "x", "task": "t", "reward": 1, "steps": 3}']))
    with pytest.raises(InputError, match=r"bad.jsonl:6, field 'steps'"):
        memory.experience.add_file(bad, kind="expert", space=space)
    with pytest.raises(UnknownSpace):
        memory.stats(space)
    run = Trajectory("r", "t", "expert", 1.0, (Step("go", "ok"),))
    with pytest.raises(InputError, match="appears twice"):
        memory.experience.add([run, run], space=space)
    with pytest.raises(InputError, match="invalid space"):
        memory.experience.add([run], space="no spaces allowed")


def test_cypher_looking_text_is_only_text(memory: GraphMemory, space: str) -> None:
    memory.experience.add(load("expert.jsonl", "expert"), space=space)
    evil = "x'}) MATCH (n) DETACH DELETE n //"
    run = Trajectory(evil, evil, "expert", 1.0, (Step(f"go to {evil}", evil),), evil)
    memory.experience.add([run], space=space)
    assert nodes(memory, space)["Task"] == 6
    stored = memory.experience.trajectory(evil, kind="expert", space=space)
    assert stored.task == evil and stored.steps[0].observation == evil


def test_reads_need_a_known_space_and_a_known_run(memory: GraphMemory, space: str) -> None:
    with pytest.raises(UnknownSpace):
        memory.experience.retrieve("anything", space=space)
    memory.experience.add(load("expert.jsonl", "expert"), space=space)
    with pytest.raises(NotFound, match="no exploration trajectory 'nope'"):
        memory.experience.diff("nope", "hot-apple-1", space=space)
    with pytest.raises(InputError, match="empty"):
        memory.experience.retrieve("  ", space=space)
    with pytest.raises(InputError):
        memory.experience.retrieve("x", space=space, k=0)


def test_export_and_import_round_trip(memory: GraphMemory, space: str) -> None:
    memory.experience.add(load("expert.jsonl", "expert"), space=space)
    memory.experience.add(load("exploration.jsonl", "exploration"), space=space)
    dump = io.StringIO()
    exported = export_space(memory, space, dump)
    path = Path(memory.settings.home) / f"{space}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump.getvalue())
    copy = f"{space}-copy"
    imported = import_dump(memory, path, space=copy)
    assert (imported.nodes, imported.relationships, imported.sha256) == (
        exported.nodes,
        exported.relationships,
        exported.sha256,
    )
    # the copy is a working memory: retrieval over its imported vectors
    hit = memory.experience.retrieve("put a hot apple in fridge", space=copy, k=1)
    assert hit.tasks[0].text == "put a hot apple in fridge"
    labels = {json.loads(line).get("label") for line in dump.getvalue().splitlines()}
    assert {"Task", "Trajectory", "Action"} <= labels


def test_retrieval_keeps_to_tasks_of_the_query_structure(
    engine_settings: Settings, hash_embedder: Embedder, space: str
) -> None:
    """The notion of similar task the insights layer uses too (task_similarity), here with
    the ALFWorld domain pack on (five tasks are too few for a space's goal model): a heating
    goal is handed heating tasks, not the mug placements that share its words."""
    settings = engine_settings.model_copy(update={"domain_pack": "alfworld"})
    with GraphMemory(settings, embedder=hash_embedder) as memory:
        memory.experience.add_file(EXAMPLES / "expert.jsonl", kind="expert", space=space)
        found = memory.experience.retrieve("put a hot mug in coffeemachine", space=space, k=3)
        assert {t.text for t in found.tasks} == {
            "heat some potato and put it in fridge",
            "put a hot apple in fridge",
        }
        edges = {(e.source_text, e.target_text) for e in found.edges}
        assert all("mug" not in a + b for a, b in edges)


def test_by_default_retrieval_learns_the_structures_from_the_space(
    memory: GraphMemory, space: str
) -> None:
    """No pack: the space's expert runs teach its goal model what each goal asks for (here
    ScienceWorld-like runs), and retrieval keeps to tasks of the goal's structure."""
    runs = []
    for n, thing in enumerate(("water", "ice", "chocolate", "wax", "tin", "lead")):
        boil = ("pick up thermometer", f"focus on {thing}", f"move {thing} to stove", "wait")
        find = ("open door to kitchen", f"pick up {thing}", f"move {thing} to red box")
        for kind, goal, actions in (
            ("boil", f"Your task is to boil {thing}.", boil),
            ("find", f"Your task is to find a {thing} and put it in the red box.", find),
        ):
            steps = tuple(Step(a, f"after {a}") for a in actions)
            runs.append(Trajectory(f"{kind}-{n}", goal, "expert", 1.0, steps))
    memory.experience.add(runs, space=space)
    assert memory.structures(space, "experience").goal("boil some mercury") == "focus move"
    found = memory.experience.retrieve("Your task is to boil mercury.", space=space, k=3)
    assert len(found.tasks) == 3 and all("boil" in t.text for t in found.tasks)
