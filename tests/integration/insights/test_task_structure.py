"""Issue 18: on a stream of household tasks that read alike, retrieval hands a task only
insights learnt on tasks of its own structure, and evidence goes only where an insight
applied."""

from __future__ import annotations

import pytest

from graphmem_neo4j.insights.models import RetrievalParams, Step, TaskRecord
from graphmem_neo4j.insights.rules import templated_insight
from graphmem_neo4j.memory import GraphMemory

from .conftest import graph, task

TAKE = ("go to countertop 1", "take tomato 1 from countertop 1")
PUT = ("go to microwave 1", "put tomato 1 in/on microwave 1")
PLACE = (*TAKE, *PUT)
COOL = (*TAKE, "go to fridge 1", "cool tomato 1 with fridge 1", *PUT)


def test_a_cooling_task_is_not_handed_a_placement_insight(memory: GraphMemory, space: str) -> None:
    """Before: the placement task was the nearest query and its insight came along."""
    memory.insights.record_tasks(
        [task("place", "put a tomato in microwave", actions=PLACE)], space=space, learn=True
    )
    assert memory.insights.list_insights(space=space)
    cool = memory.insights.retrieve("put a cool tomato in microwave", space=space)
    assert cool.insights == () and cool.queries == ()
    place = memory.insights.retrieve("put a potato in microwave", space=space)
    assert [q.id for q in place.queries] == ["place"] and place.insights


def test_similarity_edges_join_only_tasks_of_one_structure(memory: GraphMemory, space: str) -> None:
    memory.insights.record_tasks(
        [
            task("place", "put a tomato in microwave", actions=PLACE),
            task("cool-1", "put a cool tomato in microwave", actions=COOL),
            task("cool-2", "cool some tomato and put it in microwave", actions=COOL),
        ],
        space=space,
    )
    g = graph(memory, space)
    assert g.edges("SIMILAR_QUERY") <= {("cool-2", "cool-1")}
    assert {g.props("Query", q)["task_key"] for q in ("place", "cool-1", "cool-2")} == {
        "place",
        "cool",
    }


def test_a_lesson_is_not_covered_by_a_near_identical_one_of_another_structure(
    memory: GraphMemory, space: str
) -> None:
    """The ADD guard: the cooling lesson reads almost like the placement one (cosine ≥ 0.85
    with the test embedder), but it does not serve cooling tasks, so it must not block it."""
    # steps outside ALFWorld's action language: the goals tell the structures apart
    steps = ("fetch tomato", "place tomato in microwave")
    place = task("place", "put a tomato in microwave", actions=steps)
    cool = task("cool", "put a cool tomato in microwave", actions=steps)
    texts = [templated_insight(t.query, t.steps) or "" for t in (place, cool)]
    a, b = memory.embedder.embed(texts)
    assert sum(x * y for x, y in zip(a, b, strict=True)) >= 0.85
    memory.insights.record_tasks([place, cool], space=space, learn=True)
    added = [i.text for i in memory.insights.list_insights(space=space)]
    assert sorted(added) == sorted(texts)


def test_a_retrieved_insight_that_did_not_apply_gets_an_audit_record_and_no_evidence(
    memory: GraphMemory, space: str
) -> None:
    memory.insights.record_tasks(
        [
            task("heat", "heat some egg and put it in countertop", actions=()),
            task("cool", "cool some egg and put it in countertop", actions=()),
        ],
        space=space,
    )
    # learnt on one heating and one cooling task: no source structure, no actions
    mixed = memory.insights.add_insight("Mind the egg.", space=space, evidence=["heat", "cool"])
    memory.insights.record_tasks(
        [task("t", "heat some potato and put it in countertop", actions=("heat potato 1",))],
        space=space,
    )
    result = memory.insights.feedback("t", space=space)
    (edit,) = result.plan.edits
    assert (edit.insight_id, edit.operation) == (mixed.id, "NOT_APPLICABLE")
    g = graph(memory, space)
    assert (mixed.id, "t") not in g.edges("POSITIVE") | g.edges("NEGATIVE")
    trail = memory.insights.history(mixed.id, space=space).edits
    assert [(e.operation, e.query_id) for e in trail] == [("ADD", None), ("NOT_APPLICABLE", "t")]
    assert trail[1].reason.startswith("[rule none]")
    assert memory.insights.get_insight(mixed.id, space=space).positive == 2


def test_re_recording_a_judged_stream_stores_nothing(memory: GraphMemory, space: str) -> None:
    stream = [
        task("place", "put a tomato in microwave", actions=PLACE),
        task("cool", "put a cool tomato in microwave", actions=COOL),
        task("cool-2", "cool some tomato and put it in microwave", actions=COOL),
        task("fail", "cool some egg and put it in microwave", status="failed", actions=COOL),
    ]
    memory.insights.record_tasks(stream, space=space, learn=True)
    before = memory.stats(space)
    again = memory.insights.record_tasks(stream, space=space, learn=True)
    assert (again.recorded, again.unchanged) == (0, 4)
    assert all(t.feedback is not None and t.feedback.already_applied for t in again.tasks)
    assert memory.stats(space) == before


def test_a_resolved_task_is_recorded_with_what_its_trajectory_did(
    memory: GraphMemory, space: str
) -> None:
    """A human-written goal can hide the procedure ("Put a tomato in the microwave." for a
    cooling): the resolved trajectory tells, so later cooling tasks find it and its lesson."""
    memory.insights.record_tasks(
        [
            task("hidden", "Put the tomato in the microwave.", actions=COOL),
            task("said", "Put the tomato in the microwave.", status="failed", actions=COOL),
        ],
        space=space,
        learn=True,
    )
    g = graph(memory, space)
    assert g.props("Query", "hidden")["task_key"] == "cool"
    assert g.props("Query", "said")["task_key"] == "place"  # failed: what it was asked
    found = memory.insights.retrieve("put a cool tomato in microwave", space=space)
    assert [q.id for q in found.queries] == ["hidden"] and found.insights


@pytest.mark.default_similarity
def test_without_a_pack_the_space_learns_to_read_goals_from_its_resolved_tasks(
    memory: GraphMemory, space: str
) -> None:
    """No domain pack: resolved tasks are recorded with their trajectory's structure, the
    space's goal model learns from them, and a new goal is then read and kept to its own
    structure, even when another structure's task reads more alike."""
    objects = ("tomato", "potato", "apple", "egg", "bread")

    def steps(thing: str, cooled: bool) -> tuple[str, ...]:
        take = ("go to countertop 1", f"take {thing} 1 from countertop 1")
        cool = (f"cool {thing} 1 with fridge 1",) if cooled else ()
        return (*take, *cool, f"put {thing} 1 in/on microwave 1")

    tasks = [
        task(f"{kind}-{thing}", goal.format(thing), actions=steps(thing, kind == "cool"))
        for thing in objects
        for kind, goal in (
            ("cool", "put a cool {} in microwave"),
            ("place", "put a {} in microwave"),
        )
    ]
    memory.insights.record_tasks(tasks, space=space)
    g = graph(memory, space)
    assert g.props("Query", "cool-egg")["task_key"] == "take cool put"
    assert g.props("Query", "place-egg")["task_key"] == "take put"
    reader = memory.structures(space, "insights")
    assert reader.pack is None
    assert reader.goal("put a cool mug in microwave") == "take cool put"
    found = memory.insights.retrieve("put a cool egg in microwave", space=space)
    assert found.queries and all(q.id.startswith("cool-") for q in found.queries)
    typed = memory.insights.retrieve("put a cool egg in microwave", space=space, task_type="x")
    assert typed.queries == ()  # no task was recorded as that type


@pytest.mark.default_similarity
def test_the_callers_task_type_is_kept_to_even_against_a_goal_worded_alike(
    memory: GraphMemory, space: str
) -> None:
    """A recorded goal worded the same as the new one counts as similar whatever structure it
    was read as (RetrievalParams.lexical_override), but never across a task_type the caller
    gave: that is taken as given."""
    goal = "Your task is to boil water. First, focus on the substance."
    tasks = [
        TaskRecord("boil", goal, "resolved", (Step("heat pot", "hot"),), task_type="boil"),
        TaskRecord(
            "freeze",
            "Your task is to freeze water. First, focus on the substance.",
            "resolved",
            (Step("cool pot", "cold"),),
            task_type="freeze",
        ),
        TaskRecord(
            "grow",
            "Your task is to grow an orange. First, focus on the seed.",
            "resolved",
            (Step("plant seed", "grown"),),
            task_type="grow",
        ),
    ]
    memory.insights.record_tasks(tasks, space=space)
    typed = memory.insights.retrieve(goal, space=space, task_type="freeze")
    assert [q.id for q in typed.queries] == ["freeze"]
    untyped = memory.insights.retrieve(goal, space=space)
    assert untyped.queries[0].id == "boil"


HEATED = (
    "egg",
    "potato",
    "apple",
    "bread",
    "mug",
    "tomato",
    "cup",
    "plate",
    "bowl",
    "lettuce",
    "pie",
    "soup",
)


@pytest.mark.default_similarity
def test_a_task_unlike_every_recorded_one_gets_no_insight(memory: GraphMemory, space: str) -> None:
    """The floor under the seeds (RetrievalParams.min_similarity) applies once the space has
    learnt its word weights from FLOOR_MIN_GOALS goals; a goal with words no recorded goal has
    is held to edge_min_similarity (lexical.GoalIndex.new_word_means_new_kind)."""
    heat = ("go to countertop 1", "take {0} 1 from countertop 1", "heat {0} 1 with microwave 1")
    memory.insights.record_tasks(
        [
            task(
                f"heat-{thing}",
                f"heat some {thing} in the microwave",
                actions=[a.format(thing) for a in heat],
            )
            for thing in HEATED
        ],
        space=space,
        learn=True,
    )
    assert memory.insights.list_insights(space=space)
    unlike = memory.insights.retrieve("book a flight to Paris for two adults", space=space)
    assert unlike.queries == () and unlike.insights == ()
    unfloored = memory.insights.retrieve(
        "book a flight to Paris for two adults",
        space=space,
        params=RetrievalParams(min_similarity=0.0, edge_min_similarity=0.0),
    )
    assert unfloored.insights  # without the floors the nearest other kind's insights come along
    new_words_free = memory.insights.retrieve(
        "book a flight to Paris for two adults",
        space=space,
        params=RetrievalParams(min_similarity=0.0),
    )
    assert new_words_free.insights == ()  # its new words hold it to edge_min_similarity
    alike = memory.insights.retrieve("heat some potato in the microwave", space=space)
    assert "heat-potato" in [q.id for q in alike.queries] and alike.insights


def find_task(task_id: str, kind: str, thing: str, colour: str) -> TaskRecord:
    """A templated world whose kinds share one structure and differ by one goal word."""
    goal = f"Find a(n) {kind}. First, focus on the thing. Then, move it to the {colour} box."
    actions = ("open door to kitchen", f"focus on {thing}", f"move {thing} to {colour} box")
    return task(task_id, goal, actions=actions)


@pytest.mark.default_similarity
def test_kinds_that_share_a_structure_keep_their_evidence_and_edges_apart(
    memory: GraphMemory, space: str
) -> None:
    """The words a space's actions use as arguments (the thing, the box's colour) weigh nothing
    in goal similarity, so the one word that names the kind decides: the animal goals are
    closer to each other than the plant goal is to them, so it gets none of their insights;
    handed them anyway, it is not evidence for them, and joins no animal task by an edge."""
    animals = [
        find_task(f"animal-{n}", "animal", thing, colour)
        for n, (thing, colour) in enumerate(
            [("frog", "red"), ("beaver", "green"), ("crow", "blue"), ("toad", "red")]
        )
    ]
    memory.insights.record_tasks(animals, space=space, learn=True)
    learnt = {i.id for i in memory.insights.list_insights(space=space)}
    assert learnt
    plant = find_task("plant-0", "plant", "fern", "green")
    assert memory.insights.retrieve(plant.query, space=space).insights == ()
    # A margin that keeps every seed however tight its group hands it the animals' insights.
    wide = RetrievalParams(seed_margin=1.0)
    done = memory.insights.record_tasks([plant], space=space, params=wide, learn=True).tasks[0]
    assert done.retrieved
    assert done.feedback is not None
    edits = {e.insight_id: e for e in done.feedback.plan.edits}
    assert set(edits) == {c.id for c in done.retrieved}
    for edit in edits.values():
        assert edit.operation == "NOT_APPLICABLE" and "[rule goal]" in edit.reason
    g = graph(memory, space)
    crossing = {(a, b) for a, b in g.edges("SIMILAR_QUERY") if {a[:5], b[:5]} == {"anima", "plant"}}
    assert crossing == set()
    assert g.edges("SIMILAR_QUERY") & {
        (f"animal-{n}", f"animal-{m}") for n in range(4) for m in range(4)
    }
    later = memory.insights.retrieve(
        "Find a(n) animal. First, focus on the thing. Then, move it to the blue box.",
        space=space,
    )
    assert later.insights and {c.id for c in later.insights} <= learnt
