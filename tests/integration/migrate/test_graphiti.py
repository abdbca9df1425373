"""`graphmem migrate graphiti` on a graph written by graphiti-core 0.31.2's own `add_episode`
(in its own virtual environment, its LLM and embedder answered by the fake OpenAI server)."""

from __future__ import annotations

from typing import Any

import pytest

from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.migrate.run import migrate
from graphmem_neo4j.migrate.source import SourceConfig, SourceGraph

from .conftest import GRAPHITI_VENV, run_driver

pytestmark = pytest.mark.neo4j

STEPS: list[dict[str, Any]] = [
    {
        "group_id": "team",
        "name": "ep1",
        "speaker": "chat",
        "text": "Alice: I work at Acme as an engineer.",
        "time": "2024-01-10T09:00:00+00:00",
        "entities": ["Alice", "Acme"],
        "facts": [["Alice", "WORKS_AT", "Acme", "Alice works at Acme", "2024-01-10T09:00:00Z"]],
    },
    {
        "group_id": "family",
        "name": "ep2",
        "text": "Bob: my sister Carol lives in Lisbon.",
        "time": "2024-02-01T18:00:00+00:00",
        "entities": ["Bob", "Carol", "Lisbon"],
        "facts": [
            ["Carol", "SISTER_OF", "Bob", "Carol is Bob's sister", "2024-02-01T18:00:00Z"],
            ["Carol", "LIVES_IN", "Lisbon", "Carol lives in Lisbon", "2024-02-01T18:00:00Z"],
        ],
    },
    {
        "group_id": "team",
        "name": "ep3",
        "text": "Alice: I left Acme and joined Globex in June.",
        "time": "2024-06-01T09:00:00+00:00",
        "entities": ["Alice", "Globex"],
        "facts": [["Alice", "WORKS_AT", "Globex", "Alice works at Globex", "2024-06-01T09:00:00Z"]],
        "contradicts": ["Alice works at Acme"],
    },
]


@pytest.fixture(scope="module")
def graphiti_graph(source_neo4j: SourceConfig, tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("graphiti")
    script = {
        "neo4j": {
            "uri": source_neo4j.uri,
            "user": source_neo4j.user,
            "password": source_neo4j.password,
        },
        "steps": STEPS,
    }
    return run_driver(GRAPHITI_VENV, "graphiti_driver", script, tmp)


def test_episodes_entities_and_facts_arrive_with_their_times(
    graphiti_graph: Any, source_neo4j: SourceConfig, target: GraphMemory
) -> None:
    rels = graphiti_graph["relationships"]
    closed = [r for r in rels if r["invalid_at"] is not None]
    assert len(closed) == 1, "Graphiti invalidated nothing"
    source = SourceGraph(source_neo4j)
    before = source.counts()
    summary = migrate(target, source_neo4j, "graphiti")
    assert source.counts() == before
    source.close()
    assert summary["skipped"] == []
    assert set(summary["spaces"]) == {"team", "family"}
    team = summary["spaces"]["team"]
    assert (team["turns"], team["facts"], team["closed_facts"]) == (2, 2, 1)
    assert summary["spaces"]["family"]["facts"] == 2
    for group in ("team", "family"):
        mine = [r for r in rels if r["group_id"] == group]
        stored = {
            u.text: u
            for subject in {r["source"] for r in mine}
            for u in (e.unit for e in target.facts.history(subject, space=group))
        }
        assert set(stored) == {r["fact"] for r in mine}
        for r in mine:
            unit = stored[r["fact"]]
            assert unit.valid_from == r["valid_at"]
            assert unit.valid_to == r["invalid_at"]
            assert unit.recorded_at == r["created_at"]
            assert (unit.status.value == "active") == (r["expired_at"] is None)
            assert unit.source is not None and all(
                f"graphiti-{e}" in unit.source for e in r["episodes"]
            )


def test_as_of_search_and_idempotence(
    graphiti_graph: Any, source_neo4j: SourceConfig, target: GraphMemory
) -> None:
    first = migrate(target, source_neo4j, "graphiti", key="team")
    assert set(first["spaces"]) == {"team"}
    current = {u.object for u in target.facts.current("Alice", space="team")}
    assert current == {"Globex"}
    march = {u.object for u in target.facts.current("Alice", space="team", as_of="2024-03-01")}
    assert march == {"Acme"}
    hits = target.conversation.search("Where did Alice work before Globex?", space="team", k=2)
    assert any("Acme" in h.text for h in hits.hits)
    again = migrate(target, source_neo4j, "graphiti", key="team")
    assert again["stored"] == 0
    assert again["spaces"]["team"]["written"]["turns_unchanged"] == 2
