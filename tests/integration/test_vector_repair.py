"""FalkorDB 4.16 leaves a node's old vector in its HNSW index at every write to the node, and
the orphans shadow live entries: an index over nodes written at every mention (entities)
comes to answer a fraction of what it is asked. The store finds such an index and rebuilds
it (store/falkordb_vectors.py); while an index is missing or refilling, lookups scan the space
exactly. FalkorDB only: Neo4j's vector indexes replace a node's entry."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

import pytest

from graphmem_neo4j.conversation.models import TurnInput
from graphmem_neo4j.embedder import HashEmbedder
from graphmem_neo4j.errors import IndexUnavailable
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.nearest import ERROR_SAMPLE, RERANK_MARGIN, Probe, _answers, _wire, nearest
from graphmem_neo4j.queries import falkordb_vector_index_drop, load_query
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store.embedded import EmbeddedServer
from graphmem_neo4j.store.falkordb_store import FalkorDBStore

ENTITIES = 300
ASKED = 64


@pytest.fixture
def memory(falkordb_server: EmbeddedServer) -> Iterator[GraphMemory]:
    settings = Settings(home=falkordb_server.home, database=f"test_{uuid.uuid4().hex[:12]}")
    with GraphMemory(settings, embedder=HashEmbedder(64)) as memory:
        memory.init()
        yield memory


def store_of(memory: GraphMemory) -> FalkorDBStore:
    assert isinstance(memory.store, FalkorDBStore)
    return memory.store


def write_entities(memory: GraphMemory, space: str, times: int) -> None:
    """The same entities written `times` times, as mentions in later turns write them."""
    names = [f"gadget {i}" for i in range(ENTITIES)]
    vectors = memory.embedder.embed(names)
    for turn_index in range(times):
        rows = [
            {
                "id": f"e{i}",
                "name": name,
                "name_key": name,
                "type": "thing",
                "embedding": vector,
                "aliases": [f"alias {turn_index}"],
                "turn_index": turn_index,
                "first_turn": "t0",
            }
            for i, (name, vector) in enumerate(zip(names, vectors, strict=True))
        ]
        memory.store.write("conversation/upsert_entities", {"space": space, "now": 0, "rows": rows})


def ask_index(memory: GraphMemory, space: str) -> list[dict[str, object]]:
    """The entity index asked for ASKED candidates near "gadget 7" (no fallback)."""
    return memory.store.read(
        "conversation/sf_roots",
        {
            "space": space,
            "k": 5,
            "min_similarity": -1.0,
            "with_vectors": False,
            "rerank_margin": RERANK_MARGIN,
            "error_sample": ERROR_SAMPLE,
            "probes": _wire([Probe("q", memory.embedder.embed(["gadget 7"])[0])]),
            "candidates": ASKED,
        },
    )


def built(memory: GraphMemory) -> bool:
    """Whether the entity index is built and alone (while a rebuild's new index fills, the old
    one is still listed, and it is the one lookups ask)."""
    rows = memory.store.read("core/vector_index_stats", {})
    return [r["built"] for r in rows if r["label"] == "Entity"] == [True]


def answered(memory: GraphMemory, space: str) -> int:
    """How many candidates the entity index gives when asked for ASKED, once it is built (an
    index refilling answers what it holds so far, or raises IndexUnavailable)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            if not built(memory):
                raise IndexUnavailable("refilling")
            return _answers(ask_index(memory, space))["q"].seen
        except IndexUnavailable:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def roots(memory: GraphMemory, space: str) -> list[tuple[str, float]]:
    found = nearest(
        memory.store,
        "conversation/sf_roots",
        [Probe("q", memory.embedder.embed(["gadget 7"])[0])],
        space=space,
        k=5,
    )
    return [(str(h["id"]), round(float(h["similarity"]), 5)) for h in found["q"]]


def test_an_index_shadowed_by_orphans_is_rebuilt_and_answers_in_full(
    memory: GraphMemory, space: str
) -> None:
    write_entities(memory, space, 8)
    # what the repair is for: the rewritten entities' orphans shadow them
    assert answered(memory, space) < ASKED // 2
    assert store_of(memory).repair_vector_indexes() == ["Entity"]
    assert built(memory)  # the repair returns once the index is refilled
    assert answered(memory, space) == ASKED
    assert store_of(memory).repair_vector_indexes() == []  # a healthy index is left alone
    write_entities(memory, space, 8)
    assert answered(memory, space) < ASKED // 2
    assert store_of(memory).repair_vector_indexes() == ["Entity"]
    assert answered(memory, space) == ASKED


def test_an_index_below_the_minimum_is_left_to_its_exact_scans(
    memory: GraphMemory, space: str
) -> None:
    write_entities(memory, space, 8)
    assert store_of(memory).repair_vector_indexes(min_documents=ENTITIES + 1) == []
    assert answered(memory, space) < ASKED // 2


def test_an_ingestion_leaves_the_entity_index_answering_in_full(
    memory: GraphMemory, space: str
) -> None:
    write_entities(memory, space, 8)
    memory.add_turns([TurnInput("s1", "t1", "Ana", "I fixed gadget 7 today.")], space=space)
    assert answered(memory, space) == ASKED


def test_no_batch_of_an_ingestion_meets_an_index_shadowed_by_orphans(
    memory: GraphMemory, space: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every batch writes the entities it mentions, leaving orphans; the next batch's
    de-duplication lookups (new names) must still be answered by the index, not by exact
    scans of the space, which grow with it (a 10,000-turn LongMemEval pool timed out)."""
    write_entities(memory, space, 2)
    service = memory.conversation
    service.config = replace(service.config, batch_size=10)
    scans: list[str] = []
    original = memory.store.read

    def counted(query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        if query.endswith("_exact"):
            scans.append(query)
        return original(query, params)

    monkeypatch.setattr(memory.store, "read", counted)
    places = [f"{a}{b}ville" for a in ("Ard", "Bel", "Cor", "Dun", "Elm") for b in "kmnprstvz"]
    turns = [
        TurnInput("s1", f"t{i}", "Ana", f"I fixed gadget {i % 7} on my trip to {place}.")
        for i, place in enumerate(places[:40])
    ]
    report = service.add_turns(turns, space=space, forget_every=0)
    assert report.turns_written == 40 and report.entities_created >= 30
    assert scans == []
    assert answered(memory, space) == ASKED


def test_lookups_scan_exactly_while_an_index_is_missing(memory: GraphMemory, space: str) -> None:
    write_entities(memory, space, 1)
    store_of(memory).repair_vector_indexes()
    before = roots(memory, space)
    assert before[0][0] == "e7"
    drop = falkordb_vector_index_drop(load_query("conversation/schema_entity_vector", "falkordb"))
    store_of(memory)._command("GRAPH.QUERY", drop)
    deadline = time.monotonic() + 30
    while any(r["label"] == "Entity" for r in memory.store.read("core/vector_index_stats", {})):
        assert time.monotonic() < deadline, "the dropped index stays listed"
        time.sleep(0.02)  # FalkorDB drops it in the background
    with pytest.raises(IndexUnavailable):
        ask_index(memory, space)
    assert roots(memory, space) == before
    # a rebuild stopped between its drop and its create is finished by the next repair
    assert store_of(memory).repair_vector_indexes() == ["Entity"]
    assert answered(memory, space) == ASKED
    assert roots(memory, space) == before


def test_while_a_rebuild_refills_an_index_lookups_scan_exactly(
    memory: GraphMemory, space: str
) -> None:
    """A refilling index answers with the nodes indexed so far; the rebuild's mark sends every
    process's vector lookups to the exact scan until it is built."""
    write_entities(memory, space, 1)
    store_of(memory).repair_vector_indexes()
    before = roots(memory, space)
    with GraphMemory(memory.settings, embedder=memory.embedder) as other:  # another store
        store = store_of(memory)
        store._mark_refilling()
        try:
            with pytest.raises(IndexUnavailable):
                ask_index(other, space)
            assert roots(other, space) == before
            assert other.store.read("core/vector_index_stats", {})  # other reads go on
        finally:
            store._client.execute("DEL", store._refill_key)
        assert _answers(ask_index(other, space))["q"].seen == ASKED
