"""Selective forgetting: dry runs, pruning with edges, the archive and restore."""

from __future__ import annotations

from dataclasses import replace

import pytest

from graphmem_neo4j.conversation.models import ForgettingConfig, TurnInput
from graphmem_neo4j.errors import NotFound
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import space_digest

# Everything ingested is old enough and nothing protects a node with few edges.
EAGER = ForgettingConfig(min_age_turns=0, threshold=0.45, recency_turns=5, age_turns=5)


@pytest.fixture
def loaded(memory: GraphMemory, space: str, example_turns: list[TurnInput]) -> GraphMemory:
    memory.conversation.add_turns(example_turns, space=space, forget_every=0)
    return memory


def totals(memory: GraphMemory, space: str) -> tuple[int, int]:
    stats = memory.stats(space)
    return stats["total_nodes"], stats["total_relationships"]


def test_dry_run_reports_and_changes_nothing(loaded: GraphMemory, space: str) -> None:
    before = space_digest(loaded, space)
    report = loaded.conversation.forget(space=space, dry_run=True, config=EAGER)
    assert report.dry_run and not report.archived
    assert report.nodes_removed > 0 and report.edges_removed > 0 and report.bytes_removed > 0
    assert space_digest(loaded, space).sha256 == before.sha256


def test_forgetting_removes_nodes_with_their_edges_and_restore_brings_them_back(
    loaded: GraphMemory, space: str
) -> None:
    service = loaded.conversation
    before = space_digest(loaded, space)
    nodes_before, edges_before = totals(loaded, space)
    dry = service.forget(space=space, dry_run=True, config=EAGER)
    report = service.forget(space=space, config=EAGER)
    assert (report.nodes_removed, report.edges_removed) == (dry.nodes_removed, dry.edges_removed)
    assert report.archived and sum(report.removed_by_label.values()) == report.nodes_removed
    nodes_after, edges_after = totals(loaded, space)
    # the archive adds a Forgotten record per node and one ForgetRun
    assert nodes_after == nodes_before - report.nodes_removed + report.nodes_removed + 1
    assert edges_after == edges_before - report.edges_removed
    stats = loaded.stats(space)["nodes"]
    assert stats["Forgotten"] == report.nodes_removed
    assert stats.get("Turn", 0) + stats.get("Entity", 0) + report.nodes_removed == (
        nodes_before - stats["Session"] - 1
    )
    restored = service.restore(space=space, run_id=report.run_id)
    assert restored.nodes_restored == report.nodes_removed
    assert restored.edges_restored == report.edges_removed
    after = space_digest(loaded, space)
    # Everything is back, byte for byte, except the ForgetRun audit record (and the counters
    # recomputed from the same edges).
    assert after.nodes == before.nodes + 1
    assert after.relationships == before.relationships
    assert "Forgotten" not in loaded.stats(space)["nodes"]
    with pytest.raises(NotFound):
        service.restore(space=space, run_id=report.run_id)


def test_without_archive_nothing_is_kept(loaded: GraphMemory, space: str) -> None:
    report = loaded.conversation.forget(space=space, config=EAGER, archive=False)
    assert report.nodes_removed > 0 and not report.archived
    assert "Forgotten" not in loaded.stats(space)["nodes"]
    with pytest.raises(NotFound):
        loaded.conversation.restore(space=space)


def test_retrieved_nodes_survive(loaded: GraphMemory, space: str) -> None:
    service = loaded.conversation
    eager = replace(EAGER, threshold=0.3)
    doomed = {
        r["id"] for r in loaded.store.read("conversation/forget_turn_stats", {"space": space})
    }
    report = service.forget(space=space, config=eager, dry_run=True)
    assert report.removed_by_label.get("Turn", 0) > 0
    hits = [h.turn_id for h in service.search("Biscuit", space=space, k=5).hits]
    for _ in range(3):
        service.search("Biscuit", space=space, k=5)
    service.forget(space=space, config=eager)
    remaining = {
        r["id"] for r in loaded.store.read("conversation/forget_turn_stats", {"space": space})
    }
    assert set(hits) <= remaining < doomed


def test_ingestion_runs_forgetting_every_n_turns(
    memory: GraphMemory, space: str, example_turns: list[TurnInput]
) -> None:
    service = memory.conversation
    service.config = replace(service.config, batch_size=10, forgetting=replace(EAGER, every=20))
    report = service.add_turns(example_turns, space=space)
    assert len(report.forget_runs) == 3  # after 20, 40 and 60 turns
    assert memory.stats(space)["nodes"]["ForgetRun"] == 3
    none = service.add_turns(example_turns, space=f"{space}-b", forget_every=0)
    assert none.forget_runs == ()
