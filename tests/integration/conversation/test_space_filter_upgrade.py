"""A store whose vector indexes an older Neo4j created (no `space` filter property) opened on a
Neo4j with vector SEARCH: it answers on the queryNodes path, and `graphmem init` rebuilds the
indexes with the filter, keeping every node. On 5.26 the same store has nothing to rebuild."""

from __future__ import annotations

import json
import logging

import neo4j
import pytest
from typer.testing import CliRunner

from graphmem_neo4j.cli.main import app
from graphmem_neo4j.conversation.models import TurnInput
from graphmem_neo4j.embedder import HashEmbedder
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.queries import vector_index_queries
from graphmem_neo4j.schema import apply_migrations
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store.neo4j_store import Neo4jStore
from tests.conftest import empty_neo4j

pytestmark = pytest.mark.neo4j

SPACE = "maya"
QUESTIONS = ("what is the dog called", "where did Maya move", "the shelter on Elm Street")


def _vector_indexes(uri: str, user: str, password: str) -> dict[str, list[str]]:
    with neo4j.GraphDatabase.driver(uri, auth=(user, password)) as driver:
        records = driver.execute_query(
            "SHOW INDEXES YIELD name, type, properties WHERE type = 'VECTOR' "
            "RETURN name, properties"
        ).records
    return {r["name"]: sorted(r["properties"]) for r in records}


def _nodes(uri: str, user: str, password: str) -> dict[str, int]:
    """Nodes per label, and how many carry an embedding."""
    with neo4j.GraphDatabase.driver(uri, auth=(user, password)) as driver:
        records = driver.execute_query(
            "MATCH (n) RETURN labels(n)[0] AS label, count(n) AS nodes, "
            "count(n.embedding) AS embedded"
        ).records
    return {f"{r['label']}/{kind}": r[kind] for r in records for kind in ("nodes", "embedded")}


def _top(memory: GraphMemory) -> list[list[str]]:
    return [
        [h.turn_id for h in memory.conversation.search(q, space=SPACE, k=5).hits] for q in QUESTIONS
    ]


def test_old_vector_indexes_fall_back_then_init_adds_the_space_filter(
    neo4j_uri: tuple[str, str, str],
    example_turns: list[TurnInput],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    uri, user, password = neo4j_uri
    empty_neo4j(uri, user, password)  # no vector index left; the other indexes kept
    turns = example_turns[:24]
    settings = Settings(uri=uri, user=user, password=password)
    embedder = HashEmbedder(256)  # what GRAPHMEM_EMBEDDER=hash gives the CLI
    ours = set(vector_index_queries())

    # The store as a server without SEARCH writes it: the schema files' plain text.
    with GraphMemory(settings, embedder=embedder) as old:
        store = old.store
        assert isinstance(store, Neo4jStore)
        search = store.server_search
        store.vector_space_filter = False
        apply_migrations(store, embedding_model=embedder.name, dimension=embedder.dimension)
        old.conversation.add_turns(turns, space=SPACE, forget_every=0)
        before = _top(old)
    assert all(len(top) == 5 for top in before)
    nodes = _nodes(uri, user, password)
    assert nodes["Turn/embedded"] == len(turns)
    indexes = _vector_indexes(uri, user, password)
    assert set(indexes) == ours
    assert all(props == ["embedding"] for props in indexes.values())

    with caplog.at_level(logging.WARNING, logger="graphmem_neo4j.store.neo4j_store"):
        reopened = GraphMemory(settings, embedder=embedder)
    with reopened:
        store = reopened.store
        assert isinstance(store, Neo4jStore)
        if search:
            # Neo4j 2026: SEARCH would refuse these indexes (22ND3); the store says so once
            # and takes the queryNodes path.
            assert sorted(store.unfiltered_vector_indexes) == sorted(ours)
            assert not store.vector_space_filter
            assert "graphmem init" in caplog.text and "turn_embedding" in caplog.text
        else:
            assert store.unfiltered_vector_indexes == [] and not store.vector_space_filter
            assert caplog.text == ""
        assert _top(reopened) == before

        # `graphmem init` rebuilds them, from another process's point of view.
        env = {"GRAPHMEM_URI": uri, "GRAPHMEM_USER": user, "GRAPHMEM_PASSWORD": password}
        for key, value in {**env, "GRAPHMEM_EMBEDDER": "hash"}.items():
            monkeypatch.setenv(key, value)
        result = CliRunner().invoke(app, ["init", "--json"])
        assert result.exit_code == 0, result.output
        rebuilt = json.loads(result.stdout)["space_filter_added"]
        assert sorted(rebuilt) == (sorted(ours) if search else [])
        # A store opened before the rebuild still answers (queryNodes reads filtered indexes).
        assert not store.vector_space_filter
        assert _top(reopened) == before

        reopened.init()  # finds the indexes filtered: nothing to rebuild, SEARCH from now on
        assert reopened.parts.rebuilt_indexes == []
        assert store.vector_space_filter == search
        assert _top(reopened) == before  # the same answers, now by the filtered index
        assert _nodes(uri, user, password) == nodes  # every node and embedding kept
        result = CliRunner().invoke(app, ["init"])  # idempotent
        assert result.exit_code == 0 and "schema is up to date" in result.stdout

    expected = ["embedding", "space"] if search else ["embedding"]
    indexes = _vector_indexes(uri, user, password)
    assert set(indexes) == ours and all(props == expected for props in indexes.values())
    caplog.clear()
    with (
        caplog.at_level(logging.WARNING, logger="graphmem_neo4j.store.neo4j_store"),
        GraphMemory(settings, embedder=embedder) as fresh,
    ):
        assert fresh.store.vector_space_filter == search
        assert _top(fresh) == before
    assert caplog.text == ""
