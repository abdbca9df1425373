"""Every retrieval mode against the example conversation, and what searching records."""

from __future__ import annotations

import math
import threading
from dataclasses import replace

import pytest

from graphmem_neo4j.conversation.models import ConversationConfig, TurnInput
from graphmem_neo4j.conversation.readers import QueryRow
from graphmem_neo4j.conversation.service import ConversationService
from graphmem_neo4j.embedder import HashEmbedder
from graphmem_neo4j.errors import InputError, UnknownSpace
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.nearest import FILTERED_CANDIDATES, SETTLE_FACTOR, SHARE_MARGIN
from graphmem_neo4j.settings import Settings


@pytest.fixture
def loaded(memory: GraphMemory, space: str, example_turns: list[TurnInput]) -> GraphMemory:
    memory.conversation.add_turns(example_turns, space=space, forget_every=0)
    return memory


ADOPTIONS = {"s1-t03", "s4-t12"}


def ids(memory: GraphMemory, query: str, space: str, mode: str, k: int = 5) -> list[str]:
    result = memory.conversation.search(query, space=space, k=k, mode=mode)  # type: ignore[arg-type]
    assert result.mode == mode and len(result.hits) <= k
    return [h.turn_id for h in result.hits]


@pytest.mark.parametrize("mode", ["hybrid", "fulltext"])
def test_the_demo_question_finds_both_adoptions(loaded: GraphMemory, space: str, mode: str) -> None:
    assert set(ids(loaded, "What did Maya adopt, and when?", space, mode, k=3)) >= ADOPTIONS


def test_vector_mode_ranks_by_cosine(loaded: GraphMemory, space: str) -> None:
    # The embedded text of a turn is "Speaker: text": the same text has cosine 1.
    query = "Tom: Maya! Long time. I just got back from a hiking trip in the Azores."
    result = loaded.conversation.search(query, space=space, k=5, mode="vector")
    scores = [h.score for h in result.hits]
    assert scores == sorted(scores, reverse=True) and all(-1 <= s <= 1.0001 for s in scores)
    assert result.hits[0].turn_id == "s4-t01" and scores[0] == pytest.approx(1.0, abs=1e-4)
    assert result.hits[0].via == ("vector",)


def test_fulltext_mode_is_bm25_with_stemming(loaded: GraphMemory, space: str) -> None:
    hits = loaded.conversation.search("lighthouses", space=space, k=10, mode="fulltext").hits
    found = {h.turn_id for h in hits}
    assert {"s2-t10", "s2-t12", "s4-t06"} <= found  # "lighthouse" in all three
    # the rarer the words matched, the higher: "Sete Cidades lakes" is in one turn only
    top = loaded.conversation.search("Sete Cidades lakes hiking", space=space, mode="fulltext")
    assert top.hits[0].turn_id == "s4-t03"


def test_hybrid_marks_turns_lifted_by_their_neighbours(loaded: GraphMemory, space: str) -> None:
    result = loaded.conversation.search("Did you take him to a vet?", space=space, k=3)
    got = [h.turn_id for h in result.hits]
    # the question and its reply, whose vector holds the question too
    assert set(got[:2]) == {"s3-t02", "s3-t03"}
    answer = next(h for h in result.hits if h.turn_id == "s3-t03")  # the reply comes along
    assert "context" in answer.via


def test_sf_mode_returns_a_capped_two_hop_subgraph_and_its_turns(
    loaded: GraphMemory, space: str
) -> None:
    service = loaded.conversation
    result = service.search("Biscuit", space=space, k=5, mode="sf")
    assert result.hits and all(h.via == ("sf",) for h in result.hits)
    assert 1 <= len(result.nodes) <= 15
    assert max(n.hop for n in result.nodes) <= 2
    roots = [n for n in result.nodes if n.hop == 0]
    assert roots and all(n.similarity is not None and n.similarity >= 0.75 for n in roots)
    assert any(n.name == "Biscuit" for n in roots)
    node_ids = {n.id for n in result.nodes}
    assert all(e.source in node_ids and e.target in node_ids for e in result.edges)
    assert result.as_dict()["nodes"]
    # a query no entity resembles at 0.75 retrieves nothing, as the paper's cosine floor says
    assert service.search("zzzz qqqq", space=space, mode="sf").hits == ()


def test_sf_node_cap_is_configurable(loaded: GraphMemory, space: str) -> None:
    small = ConversationService(loaded, ConversationConfig(sf_node_cap=3))
    assert len(small.search("Biscuit", space=space, mode="sf", touch=False).nodes) <= 3


def test_the_turn_lookup_runs_while_the_concept_probes_are_embedded(
    loaded: GraphMemory, space: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The query is embedded alone and the vector source starts on its vector; the concept
    probes go to the model in a call of their own meanwhile (a model call that held both
    would keep the lookup waiting for the probes)."""
    question = "What activities has Maya done with her dog and which places did they visit?"
    config = loaded.conversation.config
    loaded.conversation.config = replace(config, weights=replace(config.weights, concept=0.6))
    probes = loaded.conversation.query_texts(question)[1:]
    assert probes  # the concept source is on for this question
    lookup_started = threading.Event()
    store, inner = loaded.store, loaded.embedder.inner  # type: ignore[attr-defined]
    real_read, real_embed = store.read, inner.embed

    def reading(query: str, params: object = None, **kw: object) -> object:
        if query.startswith("conversation/search_vector"):
            lookup_started.set()
        return real_read(query, params, **kw)  # type: ignore[arg-type]

    probe_calls: list[bool] = []

    def embedding(texts: list[str]) -> list[list[float]]:
        if set(probes) & set(texts):
            probe_calls.append(lookup_started.wait(timeout=10))
        return real_embed(texts)  # type: ignore[no-any-return]

    monkeypatch.setattr(store, "read", reading)
    monkeypatch.setattr(inner, "embed", embedding)
    result = loaded.conversation.search(question, space=space, k=5)
    assert probe_calls == [True]  # one call held the probes, and the lookup had started
    assert result.hits


def test_search_records_accesses(loaded: GraphMemory, space: str) -> None:
    def accesses(turn_id: str) -> int:
        rows = loaded.store.read("conversation/forget_turn_stats", {"space": space})
        return next(int(r["access_count"]) for r in rows if r["id"] == turn_id)

    service = loaded.conversation
    top = service.search("Biscuit obedience course", space=space, k=1).hits[0].turn_id
    service.settle()  # the access count is written after the answer
    assert accesses(top) == 1
    service.search("Biscuit obedience course", space=space, k=1)
    service.settle()
    assert accesses(top) == 2
    service.search("Biscuit obedience course", space=space, k=1, touch=False)
    service.settle()
    assert accesses(top) == 2


@pytest.mark.parametrize("then", ["forget", "close"])
def test_pending_access_counts_are_written_before_forgetting_and_on_close(
    loaded: GraphMemory, space: str, then: str
) -> None:
    def accesses(turn_id: str) -> int:
        rows = loaded.store.read("conversation/forget_turn_stats", {"space": space})
        return next(int(r["access_count"]) for r in rows if r["id"] == turn_id)

    service = ConversationService(loaded)
    top = service.search("Biscuit obedience course", space=space, k=1, touch=False).hits[0]
    before = accesses(top.turn_id)
    # A write that holds the background thread for a second: the search's count queues behind.
    gate = threading.Event()
    service._accesses.writes.submit(lambda: gate.wait(10))
    threading.Timer(1.0, gate.set).start()
    service.search("Biscuit obedience course", space=space, k=1)
    assert accesses(top.turn_id) == before  # not written yet: the answer did not wait
    if then == "forget":
        service.forget(space=space, dry_run=True)
    else:
        service.close()
    assert gate.is_set() and accesses(top.turn_id) == before + 1


def test_batch_search_uses_each_rows_space(loaded: GraphMemory, space: str) -> None:
    other = f"{space}-other"
    loaded.conversation.add_turns(
        [TurnInput("x", "o1", "Zed", "I repaired a lighthouse lamp.", None)],
        space=other,
        forget_every=0,
    )
    rows = [QueryRow("a", "lighthouse"), QueryRow("b", "lighthouse", other)]
    results = dict(
        (row.id, result) for row, result in loaded.conversation.search_batch(rows, space=space, k=3)
    )
    assert results["a"].space == space and results["b"].space == other
    assert [h.turn_id for h in results["b"].hits] == ["o1"]


def test_bad_searches_are_refused(loaded: GraphMemory, space: str) -> None:
    service = loaded.conversation
    with pytest.raises(InputError, match="empty"):
        service.search("   ", space=space)
    with pytest.raises(InputError, match="unknown mode"):
        service.search("dog", space=space, mode="magic")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="k must"):
        service.search("dog", space=space, k=0)
    with pytest.raises(UnknownSpace):
        service.search("dog", space=f"{space}-missing")


def test_a_query_of_only_stopwords_still_answers(loaded: GraphMemory, space: str) -> None:
    result = loaded.conversation.search("what is it?", space=space, k=3)
    assert len(result.hits) == 3  # the dense source still ranks turns
    assert loaded.conversation.search("the", space=space, mode="fulltext").hits == ()


def test_the_ann_index_path_agrees_with_the_exact_scan(loaded: GraphMemory, space: str) -> None:
    """Large spaces go through the shared vector indexes; force that path on a small one."""
    ann = ConversationService(loaded, ConversationConfig(exact_scan_turns=0))
    exact = loaded.conversation
    query = "Tom: Maya! Long time. I just got back from a hiking trip in the Azores."
    got = ann.search(query, space=space, k=3, mode="vector", touch=False).hits
    assert got[0].turn_id == "s4-t01"
    assert got[0].score == pytest.approx(
        exact.search(query, space=space, k=1, mode="vector").hits[0].score, abs=1e-4
    )
    sf_ann = ann.search("Biscuit", space=space, mode="sf", touch=False)
    sf_exact = exact.search("Biscuit", space=space, mode="sf")
    assert {n.id for n in sf_ann.nodes if n.hop == 0} == {
        n.id for n in sf_exact.nodes if n.hop == 0
    }
    assert ann.search("What did Maya adopt?", space=space, k=10, touch=False).hits


def test_the_turn_index_size_sizes_the_request_of_a_space_too_big_to_scan(
    loaded: GraphMemory, space: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small space is scanned exactly; past the scan limit the size of the shared turn index
    (read beside the space's facts) sets how many candidates the index is asked for (the
    space's share)."""
    used: list[tuple[str, object]] = []
    read = loaded.store.read

    def spy(query: str, params: object = None) -> object:
        used.append((query, params))
        return read(query, params)  # type: ignore[arg-type]

    monkeypatch.setattr(loaded.store, "read", spy)
    loaded.conversation.search("What did Maya adopt?", space=space, k=5)
    assert "conversation/search_vector_exact" in [q for q, _ in used]
    assert "conversation/search_vector" not in [q for q, _ in used]

    used.clear()
    big = ConversationService(loaded, replace(ConversationConfig(), exact_scan_turns=0))
    big.search("What did Maya adopt?", space=space, k=5, touch=False)
    asked = [p for q, p in used if q == "conversation/search_vector"]
    assert "conversation/indexed_turns" in [q for q, _ in used]
    indexed = read("conversation/indexed_turns")[0]["turns"]
    own = loaded.stats(space)["nodes"]["Turn"]
    pool = ConversationConfig().candidates
    share_sized = math.ceil(SETTLE_FACTOR * SHARE_MARGIN * pool * indexed / own)
    # An index that filters by space itself (Neo4j 2026's SEARCH) answers from the space alone.
    filtered = getattr(loaded.store, "vector_space_filter", False)
    expected = max(4 * pool, FILTERED_CANDIDATES) if filtered else min(4 * pool, share_sized)
    assert asked[0]["candidates"] == expected  # type: ignore[index]


def test_a_memory_searches_with_the_constants_chosen_for_its_model(
    engine_settings: Settings, space: str, example_turns: list[TurnInput]
) -> None:
    """A model with an entry in MODEL_WEIGHTS gets its constants (bge-small's relative dense
    score); an explicit configuration is kept as given."""

    class NamedBge(HashEmbedder):
        def __init__(self) -> None:
            super().__init__(64)
            self.name = "bge-small-en-v1.5"

    with GraphMemory(engine_settings, embedder=NamedBge()) as memory:
        weights = memory.conversation.config.weights
        assert (weights.dense, weights.dense_relative, weights.previous) == (1.0, True, 0.5)
        memory.conversation.add_turns(example_turns, space=space, forget_every=0)
        hits = memory.conversation.search(
            "What did Maya adopt, and when?", space=space, k=3, touch=False
        ).hits
        assert hits and all(h.score > 0 for h in hits)
        mine = ConversationService(memory, ConversationConfig())
        assert not mine.config.weights.dense_relative
