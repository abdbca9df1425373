"""Coordinated rewriting (§3.3) against the engine: intra-unit supersession, the static rule,
conditions, inter-unit outdating, order independence, and crash safety."""

from __future__ import annotations

import itertools

import pytest

from graphmem_neo4j.facts.config import FactConfig
from graphmem_neo4j.facts.models import UnitStatus, UpdatePolicy
from graphmem_neo4j.facts.service import FactService
from graphmem_neo4j.memory import GraphMemory

from .conftest import RecordingStore, fact, graph


def view(memory: GraphMemory, space: str, subject: str) -> set[tuple[str, str, str | None]]:
    return {
        (u.relation_key, u.object, u.context_key)
        for u in memory.facts.current(subject, space=space)
    }


def test_a_new_value_supersedes_the_old_and_closes_it(memory: GraphMemory, space: str) -> None:
    memory.facts.add_facts(
        [fact("Alice", "lives_in", "Paris", id="a1", valid_from="2019")], space=space
    )
    out = memory.facts.add_facts(
        [fact("Alice", "lives_in", "London", id="a2", valid_from="2022")], space=space
    ).outcomes[0]
    assert (out.action, out.status, out.superseded) == ("created", UnitStatus.ACTIVE, ("a1",))
    assert "a1" in out.evidence_path
    old = memory.facts.get("a1", space=space)
    assert old.status == UnitStatus.SUPERSEDED and old.valid_to == 1640995200000
    assert graph(memory, space).edges("SUPERSEDES") == {("a2", "a1")}
    assert view(memory, space, "Alice") == {("lives_in", "London", None)}
    history = memory.facts.history("Alice", space=space)
    assert [(h.unit.id, h.unit.status.value, h.superseded_by) for h in history] == [
        ("a1", "superseded", "a2"),
        ("a2", "active", None),
    ]


def test_a_weak_later_claim_is_kept_pending(memory: GraphMemory, space: str) -> None:
    memory.facts.add_facts(
        [fact("Bob", "employer", "Initech", "organisation", id="b1", confidence=0.9)], space=space
    )
    out = memory.facts.add_facts(
        [fact("Bob", "employer", "Globex", "organisation", id="b2", confidence=0.4)], space=space
    ).outcomes[0]
    assert (out.action, out.status) == ("pending", UnitStatus.PENDING)
    assert view(memory, space, "Bob") == {("employer", "Initech", None)}
    assert graph(memory, space).edges("CONTESTS") == {("b2", "b1")}
    strong = memory.facts.add_facts(
        [fact("Bob", "employer", "Globex", "organisation", id="b3", confidence=0.85)], space=space
    ).outcomes[0]
    assert strong.superseded == ("b1",)
    assert view(memory, space, "Bob") == {("employer", "Globex", None)}


def test_values_under_different_conditions_coexist(memory: GraphMemory, space: str) -> None:
    memory.facts.add_facts(
        [
            fact("Alice", "drinks", "coffee", "preference", id="d1"),
            fact("Alice", "drinks", "tea", "preference", id="d2", context="in the evening"),
            fact("Alice", "drinks", "rooibos", "preference", id="d3", context="evening"),
        ],
        space=space,
    )
    assert view(memory, space, "Alice") == {
        ("drinks", "coffee", None),
        ("drinks", "rooibos", "evening"),
    }
    evening = memory.facts.current("Alice", space=space, context="in the evening")
    assert [u.id for u in evening] == ["d3"]
    assert memory.facts.get("d2", space=space).status == UnitStatus.SUPERSEDED


def test_dependents_of_a_changed_unit_are_outdated(memory: GraphMemory, space: str) -> None:
    memory.facts.add_facts(
        [
            fact("Alice", "lives_in", "Paris", id="a1", valid_from="2019"),
            fact(
                "Alice",
                "local_club",
                "PRC",
                "activity",
                id="c1",
                depends_on=["a1"],
                valid_from="2020",
            ),
            fact("Alice", "club_fee", "40 EUR", "cost", id="f1", depends_on=["c1"]),
        ],
        space=space,
    )
    out = memory.facts.add_facts(
        [fact("Alice", "lives_in", "Lisbon", id="a2", valid_from="2023")], space=space
    ).outcomes[0]
    assert set(out.outdated) == {"c1", "f1"}
    club = memory.facts.get("c1", space=space)
    assert club.status == UnitStatus.OUTDATED and club.valid_to == 1672531200000
    assert memory.facts.get("f1", space=space).status == UnitStatus.OUTDATED
    assert ("lives_in", "Lisbon", None) in view(memory, space, "Alice")
    assert not {"c1", "f1"} & {u.id for u in memory.facts.current("Alice", space=space)}


def test_a_dependent_with_other_active_support_stays(memory: GraphMemory, space: str) -> None:
    memory.facts.add_facts(
        [
            fact("Alice", "lives_in", "Paris", id="a1", valid_from="2019"),
            fact("Alice", "works_in", "Paris", id="w1", valid_from="2019"),
            fact("Alice", "commute", "metro", "travel", id="m1", depends_on=["a1", "w1"]),
        ],
        space=space,
    )
    out = memory.facts.add_facts(
        [fact("Alice", "lives_in", "Lyon", id="a2", valid_from="2022")], space=space
    ).outcomes[0]
    assert out.outdated == ()
    assert memory.facts.get("m1", space=space).status == UnitStatus.ACTIVE


def test_a_re_asserted_value_keeps_its_dependents(memory: GraphMemory, space: str) -> None:
    memory.facts.add_facts(
        [
            fact("Alice", "lives_in", "Paris", id="a1", valid_from="2019", confidence=0.6),
            fact("Alice", "local_club", "PRC", "activity", id="c1", depends_on=["a1"]),
        ],
        space=space,
    )
    out = memory.facts.add_facts(
        [fact("Alice", "lives_in", "Paris", id="a2", valid_from="2021")], space=space
    ).outcomes[0]
    assert out.superseded == ("a1",) and out.outdated == ()
    assert memory.facts.get("c1", space=space).status == UnitStatus.ACTIVE
    assert ("a2", "c1") in graph(memory, space).edges("SUPPORTS")


def test_an_older_value_arriving_late_goes_into_history(memory: GraphMemory, space: str) -> None:
    memory.facts.add_facts(
        [fact("Carol", "lives_in", "Berlin", id="c3", valid_from="2023")], space=space
    )
    late = memory.facts.add_facts(
        [fact("Carol", "lives_in", "Madrid", id="c2", valid_from="2020")], space=space
    ).outcomes[0]
    assert (late.action, late.status) == ("historical", UnitStatus.SUPERSEDED)
    assert view(memory, space, "Carol") == {("lives_in", "Berlin", None)}
    then = memory.facts.current("Carol", space=space, as_of="2021-06-01")
    assert [u.object for u in then] == ["Madrid"]
    assert memory.facts.current("Carol", space=space, as_of="2019-01-01") == []


UPDATES = [
    fact("Dan", "lives_in", "Oslo", id="u1", valid_from="2018"),
    fact("Dan", "lives_in", "Bergen", id="u2", valid_from="2020"),
    fact("Dan", "lives_in", "Tromso", id="u3", valid_from="2022"),
    fact("Dan", "employer", "Equinor", "organisation", id="u4", valid_from="2019"),
    fact("Dan", "employer", "Rumour Inc", "organisation", id="u5", confidence=0.3),
]


@pytest.mark.parametrize("order", list(itertools.permutations(range(5)))[::13])
def test_the_final_view_does_not_depend_on_update_order(
    memory: GraphMemory, space: str, order: tuple[int, ...]
) -> None:
    for i in order:
        memory.facts.add_facts([UPDATES[i]], space=space)
    assert view(memory, space, "Dan") == {
        ("lives_in", "Tromso", None),
        ("employer", "Equinor", None),
    }
    statuses = {h.unit.id: h.unit.status.value for h in memory.facts.history("Dan", space=space)}
    assert statuses == {
        "u1": "superseded",
        "u2": "superseded",
        "u3": "active",
        "u4": "active",
        "u5": "pending",
    }
    assert graph(memory, space).edges("SUPERSEDES") == {("u2", "u1"), ("u3", "u2")}


def test_an_interrupted_rewrite_is_invisible_and_finished_by_a_rerun(
    recorded: tuple[GraphMemory, RecordingStore], space: str
) -> None:
    memory, store = recorded
    memory.facts.add_facts(
        [
            fact("Eve", "lives_in", "Rome", id="e1", valid_from="2019"),
            fact("Eve", "team", "Roma", "sport", id="t1", depends_on=["e1"]),
        ],
        space=space,
    )
    store.fail_on = "facts/apply_statuses"
    with pytest.raises(RuntimeError, match="simulated crash"):
        memory.facts.add_facts(
            [fact("Eve", "lives_in", "Milan", id="e2", valid_from="2022")], space=space
        )
    # the new unit is written, but nobody sees a half-applied rewrite
    assert memory.facts.get("e2", space=space).status == UnitStatus.PENDING
    assert {u.id for u in memory.facts.current("Eve", space=space)} == {"e1", "t1"}
    store.fail_on = None
    out = memory.facts.add_facts(
        [fact("Eve", "lives_in", "Milan", id="e2", valid_from="2022")], space=space
    ).outcomes[0]
    assert out.action == "unchanged" and out.superseded == ("e1",) and out.outdated == ("t1",)
    assert {u.id for u in memory.facts.current("Eve", space=space)} == {"e2"}


def test_baseline_policies(memory: GraphMemory, space: str) -> None:
    facts = [
        fact("Fay", "lives_in", "Paris", id="f1", valid_from="2019", confidence=0.9),
        fact("Fay", "lives_in", "Nice", id="f2", valid_from="2020", context="summer"),
        fact("Fay", "lives_in", "Rome", id="f3", valid_from="2021", confidence=0.3),
    ]
    append = FactService(memory.parts, FactConfig(policy=UpdatePolicy.APPEND_ONLY))
    append.add_facts(facts, space=space)
    assert {u.id for u in memory.facts.current("Fay", space=space)} == {"f1", "f2", "f3"}
    other = space + "-rl"
    relation = FactService(memory.parts, FactConfig(policy=UpdatePolicy.RELATION_LEVEL))
    relation.add_facts(facts, space=other)
    assert {u.id for u in memory.facts.current("Fay", space=other)} == {"f3"}
    coordinated = space + "-co"
    memory.facts.add_facts(facts, space=coordinated)
    assert {u.id for u in memory.facts.current("Fay", space=coordinated)} == {"f1", "f2"}
