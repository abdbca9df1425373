"""Reading: ask, search, current (and --as-of), history, path."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem_neo4j.errors import InputError, NotFound, UnknownSpace
from graphmem_neo4j.facts.models import FactQuery, view_dict
from graphmem_neo4j.memory import GraphMemory

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def demo(memory: GraphMemory, space: str) -> GraphMemory:
    memory.facts.add_file(REPO / "examples" / "facts.jsonl", space=space)
    memory.facts.add_file(REPO / "examples" / "facts_updates.jsonl", space=space)
    return memory


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Where does Alice live?", "Lisbon"),
        ("What does Alice drink?", "coffee"),
        ("What does Alice drink in the evening?", "rooibos"),
        ("Who is Bob's employer?", "Initech"),
        ("Who is Bob's manager?", "Alice"),
        ("Where does alice work?", "Acme"),
    ],
)
def test_ask_answers_from_the_current_view(
    demo: GraphMemory, space: str, question: str, answer: str
) -> None:
    result = demo.facts.ask(question, space=space)
    assert result.answer is not None and result.answer.object == answer
    assert result.path is not None and result.answer in result.path.units
    assert all(u.status.value == "active" for u in result.path.units)
    assert result.hits[0].unit == result.answer


def test_a_stored_context_is_recognised_in_a_question(memory: GraphMemory, space: str) -> None:
    memory.facts.add_facts(
        [
            {"subject": "Cem", "relation": "drinks", "object": "water", "category": "food"},
            {
                "subject": "Cem",
                "relation": "drinks",
                "object": "ayran",
                "category": "food",
                "context": "at dinner",
            },
        ],
        space=space,
    )
    dinner = memory.facts.ask("What does Cem drink at dinner?", space=space).answer
    anytime = memory.facts.ask("What does Cem drink?", space=space).answer
    assert dinner is not None and dinner.object == "ayran"
    assert anytime is not None and anytime.object == "water"


def test_ask_names_no_answer_when_nothing_matches(demo: GraphMemory, space: str) -> None:
    result = demo.facts.ask("What is Alice's local club?", space=space)
    assert result.answer is None  # that unit is outdated: it is not evidence any more
    assert "alice-club" not in {h.unit.id for h in result.hits}


def test_a_structured_query_and_search(demo: GraphMemory, space: str) -> None:
    hits = demo.facts.search(
        FactQuery(subject="Alice", relation="drinks", context="evening"), space=space, k=3
    )
    assert [h.rank for h in hits] == [1, 2, 3]
    assert hits[0].unit.id == "alice-drink-evening-2024"
    assert hits[0].score >= hits[1].score >= hits[2].score


def test_ask_refuses_empty_questions_and_unknown_spaces(demo: GraphMemory, space: str) -> None:
    with pytest.raises(InputError, match="empty question"):
        demo.facts.ask("   ", space=space)
    with pytest.raises(UnknownSpace):
        demo.facts.ask("Where does Alice live?", space="nobody")


def test_current_filters_and_as_of(demo: GraphMemory, space: str) -> None:
    now = {u.id for u in demo.facts.current("Alice", space=space)}
    assert now == {"alice-home-2023", "alice-job", "alice-drink", "alice-drink-evening-2024"}
    assert [u.id for u in demo.facts.current("alice", space=space, relation="lives in")] == [
        "alice-home-2023"
    ]
    assert {u.id for u in demo.facts.current("Alice", space=space, category="preference")} == {
        "alice-drink",
        "alice-drink-evening-2024",
    }
    then = {u.id for u in demo.facts.current("Alice", space=space, as_of="2021-01-01")}
    assert then == {
        "alice-home-2019",
        "alice-club",
        "alice-job",
        "alice-drink",
        "alice-drink-evening",
    }
    assert demo.facts.current("Nobody", space=space) == []
    with pytest.raises(InputError, match="ISO-8601"):
        demo.facts.current("Alice", space=space, as_of="last week")


def test_the_current_view_json_has_the_documented_fields(demo: GraphMemory, space: str) -> None:
    unit = demo.facts.current("Bob", space=space, relation="employer")[0]
    assert view_dict(unit) == {
        "id": "bob-employer",
        "subject": "Bob",
        "relation": "employer",
        "object": "Initech",
        "category": "organisation",
        "context": None,
        "status": "active",
        "valid_from": "2018-01-01T00:00:00Z",
        "valid_to": None,
        "confidence": 0.9,
    }


def test_history_lists_every_version(demo: GraphMemory, space: str) -> None:
    entries = demo.facts.history("Bob", space=space, relation="employer")
    assert [(e.unit.id, e.unit.status.value, e.contests) for e in entries] == [
        ("bob-employer", "active", None),
        ("bob-employer-rumour", "pending", "bob-employer"),
    ]


def test_path_shows_the_dependency_chain(demo: GraphMemory, space: str) -> None:
    chain = demo.facts.path("alice-club", space=space)
    assert chain.unit.status.value == "outdated"
    assert [u.id for u in chain.supporters] == ["alice-home-2019"]
    assert chain.dependents == ()
    assert chain.edges == (("alice-home-2019", "alice-club"),)
    down = demo.facts.path("bob-employer", space=space)
    assert [u.id for u in down.dependents] == ["bob-manager"]
    with pytest.raises(NotFound):
        demo.facts.path("nope", space=space)
