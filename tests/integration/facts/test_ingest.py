"""Structured ingestion: validation before any write, idempotency, ids, dependencies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem_neo4j.errors import InputError, UnknownSpace
from graphmem_neo4j.facts.models import UnitStatus
from graphmem_neo4j.facts.writes import UnitWrites
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import space_digest

from .conftest import fact, graph

REPO = Path(__file__).resolve().parents[3]


def test_the_example_file_builds_the_hierarchy(memory: GraphMemory, space: str) -> None:
    report = memory.facts.add_file(REPO / "examples" / "facts.jsonl", space=space)
    assert report.counts()["created"] == 7
    g = graph(memory, space)
    assert g.ids("Subject") == {"alice", "bob"}
    assert g.ids("Category") == {"location", "activity", "organisation", "preference", "person"}
    assert g.ids("Context") == {"evening"}
    assert ("alice", "alice-home-2019") in g.edges("SUBJECT_OF")
    assert ("location", "alice-home-2019") in g.edges("CATEGORY_OF")
    assert g.edges("CONTEXT_OF") == {("evening", "alice-drink-evening")}
    assert g.edges("SUPPORTS") == {
        ("alice-home-2019", "alice-club"),
        ("bob-employer", "bob-manager"),
    }
    unit = g.props("MemoryUnit", "alice-home-2019")
    assert unit["status"] == "active" and unit["confidence"] == 0.9
    assert unit["text"] == "Alice lives in Paris" and unit["source"] == "onboarding form"
    assert unit["valid_from"] == 1551398400000 and "valid_to" not in unit
    assert len(unit["embedding"]) == 64
    assert g.props("Subject", "alice")["name"] == "Alice"


def test_adding_the_same_file_twice_stores_it_once(memory: GraphMemory, space: str) -> None:
    path = REPO / "examples" / "facts.jsonl"
    memory.facts.add_file(path, space=space)
    memory.facts.add_file(REPO / "examples" / "facts_updates.jsonl", space=space)
    before = space_digest(memory, space)
    again = memory.facts.add_file(REPO / "examples" / "facts_updates.jsonl", space=space)
    assert {o.action for o in again.outcomes} == {"unchanged"}
    memory.facts.add_file(path, space=space)
    assert space_digest(memory, space).sha256 == before.sha256


def test_facts_without_ids_or_times_are_identified_by_content(
    memory: GraphMemory, space: str
) -> None:
    first = memory.facts.add_facts([fact("Alice", "lives in", "Paris")], space=space)
    second = memory.facts.add_facts([fact("alice", "Lives_In", "paris")], space=space)
    assert first.outcomes[0].id == second.outcomes[0].id
    assert second.outcomes[0].action == "unchanged"
    assert len(graph(memory, space).ids("MemoryUnit")) == 1


def test_a_bad_line_stores_nothing_from_the_file(
    memory: GraphMemory, space: str, tmp_path: Path
) -> None:
    path = tmp_path / "facts.jsonl"
    lines = [fact("Alice", "lives_in", "Paris"), fact("Bob", "works_at", "Acme", confidence=3)]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    with pytest.raises(InputError) as caught:
        memory.facts.add_file(path, space=space)
    assert (caught.value.line, caught.value.field) == (2, "confidence")
    with pytest.raises(UnknownSpace):
        memory.facts.current("Alice", space=space)


def test_api_errors_name_the_item(memory: GraphMemory, space: str) -> None:
    with pytest.raises(InputError) as caught:
        memory.facts.add_facts(
            [fact("Alice", "lives_in", "Paris"), {**fact("Bob", "x", "y"), "subject": None}],
            space=space,
        )
    assert str(caught.value) == "input:2, field 'subject': Input should be a valid string"


def test_unknown_dependencies_are_refused_before_any_write(memory: GraphMemory, space: str) -> None:
    memory.facts.add_facts([fact("Alice", "lives_in", "Paris", id="a1")], space=space)
    with pytest.raises(InputError, match="unknown unit id 'zz'") as caught:
        memory.facts.add_facts(
            [
                fact("Bob", "lives_in", "Rome", id="b1"),
                fact("Bob", "team", "Roma", "sport", depends_on=["b1", "a1", "zz"]),
            ],
            space=space,
        )
    assert (caught.value.line, caught.value.field) == (2, "depends_on")
    assert graph(memory, space).ids("MemoryUnit") == {"a1"}


def test_a_dependency_must_come_before_its_dependent(memory: GraphMemory, space: str) -> None:
    with pytest.raises(InputError, match="earlier"):
        memory.facts.add_facts(
            [
                fact("Bob", "team", "Roma", "sport", depends_on=["b1"]),
                fact("Bob", "x", "y", id="b1"),
            ],
            space=space,
        )


def test_an_id_cannot_be_reused_for_another_fact(memory: GraphMemory, space: str) -> None:
    memory.facts.add_facts([fact("Alice", "lives_in", "Paris", id="a1")], space=space)
    with pytest.raises(InputError, match="already stores another fact") as caught:
        memory.facts.add_facts([fact("Alice", "lives_in", "Rome", id="a1")], space=space)
    assert caught.value.field == "id"
    assert memory.facts.get("a1", space=space).object == "Paris"


def test_cypher_in_values_is_stored_as_text(memory: GraphMemory, space: str) -> None:
    nasty = "Paris'}) MATCH (n) DETACH DELETE n //"
    memory.facts.add_facts(
        [fact("Alice", "lives_in", nasty, id="a1"), fact("Bob", "works_at", "Acme", id="b1")],
        space=space,
    )
    assert memory.facts.get("a1", space=space).object == nasty
    assert graph(memory, space).ids("MemoryUnit") == {"a1", "b1"}
    with pytest.raises(InputError, match="no brackets"):
        memory.facts.add_facts([fact("Alice", "x}) DELETE n", "y")], space=space)


def test_bad_space_names_are_refused(memory: GraphMemory) -> None:
    with pytest.raises(InputError, match="invalid space name"):
        memory.facts.add_facts([fact("Alice", "lives_in", "Paris")], space="no spaces allowed")


def test_an_empty_batch_is_refused(memory: GraphMemory, space: str) -> None:
    with pytest.raises(InputError, match="no facts"):
        memory.facts.add_facts([], space=space)


def test_a_new_slot_is_written_active_without_a_rewrite(memory: GraphMemory, space: str) -> None:
    report = memory.facts.add_facts(
        [fact(f"P{i}", "lives_in", "Oslo") for i in range(30)], space=space
    )
    assert {o.status for o in report.outcomes} == {UnitStatus.ACTIVE}
    assert len(graph(memory, space).ids("MemoryUnit")) == 30


def test_a_dependency_in_the_same_batch_is_written_without_a_flip(
    memory: GraphMemory, space: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dependent of a new fact of the batch is written active at once, with its edge;
    if the edge's write fails, running the same input again writes it."""
    facts = [
        fact("Ana", "lives_in", "Oslo", id="ana-home"),
        fact("Ana", "local_club", "Oslo club", "activity", id="ana-club", depends_on=["ana-home"]),
    ]
    real_supports = UnitWrites.write_supports
    flips: list[object] = []
    monkeypatch.setattr(UnitWrites, "apply", lambda self, space, changes: flips.append(changes))

    def failing(self: UnitWrites, space: str, edges: object) -> None:
        raise OSError("connection lost")

    monkeypatch.setattr(UnitWrites, "write_supports", failing)
    with pytest.raises(OSError):
        memory.facts.add_facts(facts, space=space)
    assert graph(memory, space).edges("SUPPORTS") == set()
    monkeypatch.setattr(UnitWrites, "write_supports", real_supports)
    report = memory.facts.add_facts(facts, space=space)
    assert [o.action for o in report.outcomes] == ["unchanged", "unchanged"]
    assert graph(memory, space).edges("SUPPORTS") == {("ana-home", "ana-club")}
    assert memory.facts.get("ana-club", space=space).status == UnitStatus.ACTIVE
    flips.clear()
    fresh = [
        fact("Ben", "lives_in", "Rome", id="ben-home"),
        fact("Ben", "local_club", "Rome club", "activity", id="ben-club", depends_on=["ben-home"]),
    ]
    report = memory.facts.add_facts(fresh, space=space)
    assert [(o.action, o.status) for o in report.outcomes] == [
        ("created", UnitStatus.ACTIVE),
        ("created", UnitStatus.ACTIVE),
    ]
    assert flips == []  # no status was written after the units
    assert ("ben-home", "ben-club") in graph(memory, space).edges("SUPPORTS")
