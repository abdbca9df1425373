"""`graphmem migrate mem0` on a graph written by Mem0 1.0.11's own `Memory.add` (in its own
virtual environment, its LLM and embedder answered by the fake OpenAI server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from graphmem_neo4j.facts.keys import format_time
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.migrate.run import migrate
from graphmem_neo4j.migrate.source import SourceConfig, SourceGraph
from graphmem_neo4j.settings import Settings

from .conftest import MEM0_VENV, run_driver

pytestmark = pytest.mark.neo4j

STEPS: list[dict[str, Any]] = [
    {
        "user_id": "alice",
        "text": "I live in Paris and I love jazz.",
        "entities": {"alice": "person", "paris": "city", "jazz": "music genre"},
        "relations": [["alice", "lives_in", "paris"], ["alice", "loves", "jazz"]],
    },
    {
        "user_id": "bob",
        "text": "Bob works at Acme Corp in Rome.",
        "entities": {"bob": "person", "acme corp": "organization", "rome": "city"},
        "relations": [["bob", "works_at", "acme corp"], ["acme corp", "located_in", "rome"]],
    },
    {
        "user_id": "alice",
        "text": "I moved to Berlin last week.",
        "entities": {"alice": "person", "berlin": "city"},
        "relations": [["alice", "lives_in", "berlin"]],
        "delete": [["alice", "lives_in", "paris"]],
    },
    {
        "user_id": "alice",
        "text": "I also enjoy hiking with Bob.",
        "entities": {"alice": "person", "hiking": "activity", "bob": "person"},
        "relations": [["alice", "enjoys", "hiking"], ["alice", "friend_of", "bob"]],
    },
]


@pytest.fixture(scope="module")
def mem0_graph(source_neo4j: SourceConfig, tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("mem0")
    script = {
        "neo4j": {
            "uri": source_neo4j.uri,
            "user": source_neo4j.user,
            "password": source_neo4j.password,
        },
        "qdrant_path": str(tmp / "qdrant"),
        "history_path": str(tmp / "history.db"),
        "users": ["alice", "bob"],
        "steps": STEPS,
    }
    return run_driver(MEM0_VENV, "mem0_driver", script, tmp)


def spaced(name: str) -> str:
    return name.replace("_", " ")


def test_every_relationship_becomes_a_fact_with_the_source_times(
    mem0_graph: Any, source_neo4j: SourceConfig, target: GraphMemory
) -> None:
    rels = mem0_graph["relationships"]
    assert any(r["valid"] is False for r in rels), "Mem0 soft-deleted nothing"
    summary = migrate(target, source_neo4j, "mem0")
    assert summary["skipped"] == []
    assert set(summary["spaces"]) == {"alice", "bob"}
    assert summary["stored"] > 0 and summary["source_unchanged"]
    for user in ("alice", "bob"):
        mine = [r for r in rels if r["user_id"] == user]
        assert summary["spaces"][user]["facts"] == len(mine)
        stored = {
            (u.subject, u.relation, u.object): u
            for subject in {spaced(r["source"]) for r in mine}
            for u in (e.unit for e in target.facts.history(subject, space=user))
        }
        assert len(stored) == len(mine)
        for r in mine:
            unit = stored[(spaced(r["source"]), r["relationship"], spaced(r["target"]))]
            assert unit.valid_from == r["created_at"]
            assert unit.valid_to == r["invalidated_at"]
            assert (unit.status.value == "active") == (r["valid"] is not False)


def test_current_and_as_of_answers_match_the_source(
    mem0_graph: Any, source_neo4j: SourceConfig, target: GraphMemory
) -> None:
    migrate(target, source_neo4j, "mem0")
    current = {
        (u.subject, u.relation, u.object) for u in target.facts.current("alice", space="alice")
    }
    expected = {
        (spaced(r["source"]), r["relationship"], spaced(r["target"]))
        for r in mem0_graph["get_all"]["alice"]
        if r["source"] == "alice"
    }
    assert current == expected
    assert ("alice", "lives_in", "paris") not in current
    closed = next(r for r in mem0_graph["relationships"] if r["valid"] is False)
    moment = (closed["created_at"] + closed["invalidated_at"]) // 2
    then = {
        (u.subject, u.relation, u.object)
        for u in target.facts.current("alice", space="alice", as_of=format_time(moment))
    }
    assert ("alice", "lives_in", "paris") in then
    assert ("alice", "lives_in", "berlin") not in then
    answer = target.facts.ask("Where does alice live?", space="alice")
    assert answer.answer is not None and answer.answer.object == "berlin"


def test_a_second_run_stores_nothing_and_the_source_is_untouched(
    mem0_graph: Any, source_neo4j: SourceConfig, target: GraphMemory
) -> None:
    source = SourceGraph(source_neo4j)
    before = source.counts(), source.read("mem0_relationships", {"user_id": None})
    first = migrate(target, source_neo4j, "mem0")
    dry = migrate(None, source_neo4j, "mem0", dry_run=True)
    second = migrate(target, source_neo4j, "mem0")
    after = source.counts(), source.read("mem0_relationships", {"user_id": None})
    source.close()
    assert first["stored"] > 0
    assert second["stored"] == 0
    assert dry["spaces"]["alice"]["facts"] == first["spaces"]["alice"]["facts"]
    assert "written" not in dry["spaces"]["alice"]
    assert before == after


def test_one_user_into_a_named_space_on_the_source_server(
    mem0_graph: Any, source_neo4j: SourceConfig
) -> None:
    """The source and the target may be one Neo4j: graphmem's nodes (with `space`) are never
    read back as Mem0's."""
    settings = Settings(
        uri=source_neo4j.uri, user=source_neo4j.user, password=source_neo4j.password
    )
    from graphmem_neo4j.embedder import HashEmbedder

    with GraphMemory(settings, embedder=HashEmbedder()) as memory:
        first = migrate(memory, source_neo4j, "mem0", key="bob", space="bob-mem0")
        again = migrate(memory, source_neo4j, "mem0", key="bob", space="bob-mem0")
        assert set(first["spaces"]) == {"bob-mem0"}
        assert again["stored"] == 0 and again["skipped"] == []
        units = memory.facts.current("bob", space="bob-mem0")
        assert {(u.relation, u.object) for u in units} == {("works_at", "acme corp")}
        assert {u.category for u in units} == {"person"}


def test_the_cli_prints_per_space_counts(
    mem0_graph: Any, source_neo4j: SourceConfig, tmp_path: Path
) -> None:
    import json

    from typer.testing import CliRunner

    from graphmem_neo4j.cli.main import app

    args = [
        "migrate",
        "mem0",
        "--source-uri",
        source_neo4j.uri,
        "--source-password",
        str(source_neo4j.password),
        "--dry-run",
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "space alice (mem0 alice): would import" in result.output
    result = CliRunner().invoke(app, [*args, "--json"])
    data = json.loads(result.output)
    assert data["dry_run"] is True and data["spaces"]["bob"]["facts"] == 2
