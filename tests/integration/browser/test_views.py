"""The Browser views and the picks behind `graphmem browse`, run on a space holding every
layer: each view returns exactly the nodes it promises (checked against the exported graph)."""

from __future__ import annotations

from typing import Any

import pytest

from graphmem_neo4j.browse import VIEWS, Choices, plan_views
from graphmem_neo4j.errors import InputError, NotFound

from .conftest import ODD_SESSION, Graph, Populated, node_ids, read_graph

BIG = 10_000


def run_view(populated: Populated, name: str, **params: Any) -> set[str]:
    rows = populated.memory.store.read(f"browse/{name}", {"space": populated.space, **params})
    return node_ids([list(row.values()) for row in rows])


def test_session_view(populated: Populated) -> None:
    graph = populated.graph
    session = "s2"
    turns = sorted(graph.out(session, "HAS_TURN"), key=lambda t: graph.nodes[t][1]["seq"])
    assert len(turns) > 3

    def expected(kept: list[str]) -> set[str]:
        return {session, *kept} | {e for t in kept for e in graph.out(t, "MENTIONS")}

    assert run_view(populated, "conversation_session", session=session, limit=BIG) == expected(
        turns
    )
    # $limit keeps the first turns of the session, in order, and only their entities.
    assert run_view(populated, "conversation_session", session=session, limit=3) == expected(
        turns[:3]
    )


def test_entity_view(populated: Populated) -> None:
    graph = populated.graph
    entity = max(graph.label("Entity"), key=lambda e: len(graph.into(e, "MENTIONS")))
    expected = {entity, *graph.into(entity, "MENTIONS")} | graph.within(entity, ("RELATES",), 2)
    assert len(expected) > 3
    assert run_view(populated, "conversation_entity", entity=entity, limit=BIG) == expected


def micrograph(graph: Graph, subject: str, category: str | None) -> set[str]:
    units = [
        u
        for u in graph.out(subject, "SUBJECT_OF")
        if category is None or category in graph.into(u, "CATEGORY_OF")
    ]
    found = {subject, *units}
    for unit in units:
        found |= set(graph.into(unit, "CATEGORY_OF")) | set(graph.into(unit, "CONTEXT_OF"))
        found |= graph.within(unit, ("SUPPORTS",), 3)
        found |= graph.around(unit, ("SUPERSEDES", "CONTESTS"))
    return found


@pytest.mark.parametrize("category", [None, "location"])
def test_micrograph_view(populated: Populated, category: str | None) -> None:
    expected = micrograph(populated.graph, "alice", category)
    got = run_view(populated, "facts_micrograph", subject="alice", category=category, limit=BIG)
    assert got == expected
    if category == "location":
        # the evidence path reaches the club unit that rests on the old home, in another
        # category; and the superseding unit is shown with the one it replaced
        assert {"alice-home-2019", "alice-home-2023", "alice-club"} <= got
        assert "alice-job" not in got


def test_evidence_paths_stop_at_three_hops(populated: Populated) -> None:
    got = run_view(populated, "facts_micrograph", subject="carol", category="location", limit=BIG)
    assert got == micrograph(populated.graph, "carol", "location")
    assert {"carol-home", "carol-commute", "carol-stop", "carol-coffee"} <= got
    assert "carol-barista" not in got  # four hops away


def test_edit_trail_view(populated: Populated) -> None:
    graph = populated.graph
    revised = [s for r, s, _, _ in graph.edges if r == "REVISED_FROM"]
    assert revised, "the scenario must revise an insight"
    insight = revised[0]
    versions = {insight} | graph.within(insight, ("REVISED_FROM",), 20)
    assert len(versions) >= 2
    expected = set(versions)
    for version in versions:
        expected |= set(graph.into(version, "EDIT_OF"))
        expected |= set(graph.out(version, "POSITIVE")) | set(graph.out(version, "NEGATIVE"))
    assert run_view(populated, "insights_edit_trail", insight=insight, limit=BIG) == expected


def test_trajectory_view(populated: Populated) -> None:
    graph = populated.graph
    matched = [s for r, s, _, _ in graph.edges if r == "MATCHED_TO"]
    trajectory = matched[0]
    actions = graph.out(trajectory, "HAS_ACTION")
    assert len(actions) > 2
    expected = {trajectory, *actions, *graph.out(trajectory, "OF_TASK")}
    expected |= graph.around(trajectory, ("MATCHED_TO",))
    assert (
        run_view(populated, "experience_trajectory", trajectory=trajectory, limit=BIG) == expected
    )


def test_task_view(populated: Populated) -> None:
    graph = populated.graph
    task = max(graph.label("Task"), key=lambda t: len(graph.around(t, ("SIMILAR_TASK",))))
    expected = {task, *graph.into(task, "OF_TASK")} | graph.around(task, ("SIMILAR_TASK",))
    assert len(expected) > 2
    assert run_view(populated, "experience_task", task=task, limit=BIG) == expected


def test_plan_picks_representative_nodes(populated: Populated) -> None:
    graph = populated.graph
    plan = plan_views(populated.memory, populated.space)
    assert plan.empty == []
    picked = {p.view.target: p.params[p.view.target] for p in plan.views}
    assert set(picked) == {v.target for v in VIEWS}
    sessions = graph.label("Session")
    assert sessions[picked["session"]]["turn_count"] == max(
        s["turn_count"] for s in sessions.values()
    )
    links = {
        subject: sum(len(graph.around(u, ("SUPPORTS",))) for u in graph.out(subject, "SUBJECT_OF"))
        for subject in graph.label("Subject")
    }
    assert links[picked["subject"]] == max(links.values()) > 0  # the best-connected subject
    assert graph.within(picked["insight"], ("REVISED_FROM",), 1)  # a revised insight
    assert graph.around(picked["trajectory"], ("MATCHED_TO",))  # a matched run
    for item in plan.views:
        assert item.params["space"] == populated.space and item.params["limit"] == 50


def test_named_choices_resolve_by_id_name_or_alias(populated: Populated) -> None:
    memory, space = populated.memory, populated.space
    choices = Choices(
        session=ODD_SESSION,
        entity="biscuit",
        subject="ALICE",
        category="Location",
        trajectory="hot-apple-1",
        task=next(iter(populated.graph.label("Task").values()))["text"].upper(),
    )
    plan = plan_views(memory, space, choices=choices)
    picked = {p.view.target: p.params for p in plan.views}
    assert picked["session"]["session"] == ODD_SESSION
    entity = populated.graph.nodes[picked["entity"]["entity"]][1]
    assert entity["name"].lower() == "biscuit"
    assert picked["subject"]["subject"] == "alice"
    assert picked["subject"]["category"] == "location"
    assert picked["trajectory"]["trajectory"].endswith("hot-apple-1")


def test_layers_and_unknown_names(populated: Populated) -> None:
    memory, space = populated.memory, populated.space
    plan = plan_views(memory, space, layer="facts")
    assert [p.view.name for p in plan.views] == ["facts_micrograph"]
    with pytest.raises(NotFound, match="subject"):
        plan_views(memory, space, choices=Choices(subject="x'}) DETACH DELETE n //"))
    with pytest.raises(NotFound, match="category"):
        plan_views(memory, space, choices=Choices(category="nowhere"))
    with pytest.raises(InputError, match="--limit"):
        plan_views(memory, space, limit=0)
    assert read_graph(memory, space) == populated.graph  # browsing wrote nothing


def test_nodes_and_relationships_come_back_as_property_maps(populated: Populated) -> None:
    """The same plain rows from both engines: a relationship is its property map (the Neo4j
    driver's Record.data() would have made it a tuple of its end nodes and type)."""
    rows = populated.memory.store.read(
        "browse/conversation_session", {"space": populated.space, "session": "s2", "limit": BIG}
    )

    def no_driver_values(value: Any) -> None:
        assert not isinstance(value, tuple), value
        assert type(value).__module__.split(".")[0] in ("builtins",), type(value)
        for item in (
            value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        ):
            no_driver_values(item)

    assert rows
    for row in rows:
        no_driver_values(row)
    mentions = [m for row in rows for m in row["mentions"]]
    assert mentions and all(isinstance(m, dict) for m in mentions)
    assert rows[0]["session"]["id"] == "s2"
