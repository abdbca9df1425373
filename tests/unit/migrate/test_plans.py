"""The plans built from source rows: what is imported, and what is skipped with its element id
and reason (no database: the rows are what the `cypher/migrate` queries return)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from graphmem_neo4j.migrate.graphiti import build_graphiti_plan
from graphmem_neo4j.migrate.mem0 import build_mem0_plan
from graphmem_neo4j.migrate.names import relation_name, space_name
from graphmem_neo4j.migrate.source import epoch_ms


def node(eid: str, name: Any, user: Any = "alice", labels: tuple[str, ...] = ("person",)) -> Any:
    return {
        "element_id": eid,
        "labels": list(labels),
        "name": name,
        "user_id": user,
        "created": 1_700_000_000_000,
    }


def rel(eid: str, **over: Any) -> dict[str, Any]:
    row = {
        "element_id": eid,
        "type": "lives_in",
        "source_id": "n1",
        "source_name": "alice",
        "source_user": "alice",
        "source_labels": ["person"],
        "target_id": "n2",
        "target_name": "new_york",
        "target_user": "alice",
        "target_labels": ["city"],
        "created": None,
        "created_at": 1_700_000_000_000,
        "updated_at": 1_700_000_500_000,
        "mentions": 1,
        "valid": True,
        "invalidated_at": None,
    }
    row.update(over)
    return row


def test_mem0_rows_become_entities_and_facts_with_source_times() -> None:
    closed_at = datetime(2024, 5, 1, tzinfo=UTC)
    plan = build_mem0_plan(
        [node("n1", "alice"), node("n2", "new_york", labels=("__Entity__", "city"))],
        [
            rel("r1"),
            rel("r2", type="loves", target_name="jazz", valid=False, invalidated_at=closed_at),
            rel("r3", created_at=None, created=1_600_000_000_000),  # 1.0.0 wrote `created`
        ],
    )
    space = plan.spaces["alice"]
    assert [e.name for e in space.entities] == ["alice", "new york"]
    assert [e.category for e in space.entities] == ["person", "city"]
    first, loved, old = space.facts
    assert (first.subject, first.relation, first.object) == ("alice", "lives_in", "new york")
    assert (first.valid_from, first.valid_to, first.closed) == (1_700_000_000_000, None, False)
    assert loved.closed and loved.valid_to == int(closed_at.timestamp() * 1000)
    assert old.valid_from == 1_600_000_000_000
    assert plan.skipped == []


def test_mem0_malformed_rows_are_reported_with_their_element_id() -> None:
    plan = build_mem0_plan(
        [node("n9", 42), node("n8", "bob", user=None)],
        [
            rel("r1", target_user=None),
            rel("r2", source_name=7),
            rel("r3", created_at=None),
            rel("r4", created_at="yesterday"),
            rel("r5", valid=False, updated_at=None),
            rel("r6", type="___"),
            rel("r7", target_user="bob"),
        ],
    )
    reasons = {s.element_id: s.reason for s in plan.skipped}
    assert reasons["n9"] == "name is not a string"
    assert reasons["n8"] == "no user_id"
    assert reasons["r1"] == "target node has no user_id"
    assert reasons["r2"] == "source node: name is not a string"
    assert reasons["r3"] == "no created/created_at timestamp"
    assert reasons["r4"].startswith("timestamp:")
    assert reasons["r5"] == "soft-deleted without invalidated_at or updated_at"
    assert "no letters or digits" in reasons["r6"]
    assert "two users" in reasons["r7"]
    assert plan.spaces == {} or all(not p.facts for p in plan.spaces.values())


def test_mem0_one_user_into_a_named_space() -> None:
    plan = build_mem0_plan(
        [node("n1", "alice"), node("n3", "bob", user="bob")],
        [rel("r1"), rel("r2", source_user="bob", target_user="bob", source_name="bob")],
        user_id="bob",
        space="adopted",
    )
    assert list(plan.spaces) == ["adopted"]
    assert [f.subject for f in plan.spaces["adopted"].facts] == ["bob"]


def test_graphiti_rows_become_turns_entities_and_bitemporal_facts() -> None:
    t = datetime(2024, 1, 10, 9, tzinfo=UTC)
    plan = build_graphiti_plan(
        episodes=[
            {
                "element_id": "e1",
                "uuid": "u1",
                "group_id": "g",
                "content": "hi",
                "source": "message",
                "source_description": "chat",
                "valid_at": t,
                "created_at": t,
                "saga": None,
            },
            {"element_id": "e2", "uuid": "u2", "group_id": "g", "content": None, "valid_at": t},
        ],
        entities=[
            {
                "element_id": "n1",
                "uuid": "a",
                "name": "Alice",
                "group_id": "g",
                "labels": ["Entity", "Person"],
                "created_at": t,
            },
            {"element_id": "n2", "uuid": "b", "name": None, "group_id": "g", "labels": []},
        ],
        edges=[
            {
                "element_id": "r1",
                "uuid": "x",
                "name": "WORKS_AT",
                "fact": "Alice works at Acme",
                "group_id": "g",
                "episodes": ["u1"],
                "created_at": t,
                "expired_at": t,
                "valid_at": "2024-01-01T00:00:00Z",
                "invalid_at": "2024-06-01T00:00:00Z",
                "source_name": "Alice",
                "source_labels": ["Entity", "Person"],
                "target_name": "Acme",
            },
            {
                "element_id": "r2",
                "uuid": "y",
                "name": "KNOWS",
                "group_id": "g",
                "created_at": None,
                "source_name": "Alice",
                "target_name": "Bob",
            },
        ],
        mentions=[{"element_id": "m1", "episode": "u1", "entity": "Alice", "group_id": "g"}],
        reported=[{"group_id": "g", "kind": "communities", "count": 2}],
    )
    space = plan.spaces["g"]
    assert [(t.turn_id, t.session, t.speaker) for t in space.turns] == [
        ("graphiti-u1", "g", "chat")
    ]
    assert [(e.name, e.category) for e in space.entities] == [("Alice", "person")]
    (fact,) = space.facts
    assert (fact.relation, fact.category, fact.text) == (
        "works_at",
        "person",
        "Alice works at Acme",
    )
    assert fact.valid_from == epoch_ms("2024-01-01T00:00:00Z")
    assert fact.valid_to == epoch_ms("2024-06-01T00:00:00Z")
    assert fact.recorded_at == int(t.timestamp() * 1000) and fact.closed
    assert fact.evidence == ("graphiti-u1",)
    assert space.mentions == [("graphiti-u1", "Alice")]
    assert space.reported == {"communities": 2}
    assert {s.element_id: s.reason for s in plan.skipped} == {
        "e2": "no content",
        "n2": "no name",
        "r2": "no created_at",
    }


def test_names() -> None:
    assert space_name("mem0", "alice@example.com") == "alice-example.com"
    assert space_name("mem0", "@@") == "mem0"
    assert relation_name("WORKS_AT") == "works_at"
    assert relation_name("_apostrophe_s") == "apostrophe_s"
    assert epoch_ms(1_700_000_000) == 1_700_000_000_000
    assert epoch_ms("2024-01-01") == epoch_ms(datetime(2024, 1, 1, tzinfo=UTC))
