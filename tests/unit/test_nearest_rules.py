"""When `nearest()` trusts the shared vector index and when it scans the space exactly."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphmem_neo4j import nearest as nearest_module
from graphmem_neo4j.nearest import nearest_one


class ScriptedStore:
    """Answers the index query with `own` of the space's nodes among `seen` candidates (the
    share stays the same at every depth), and the exact query with the space's true top k."""

    def __init__(self, share: float) -> None:
        self.share = share
        self.asked: list[tuple[str, int]] = []

    def read(self, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        assert params is not None
        if query.endswith("_exact"):
            self.asked.append((query, 0))
            hits = [{"id": f"exact{i}", "similarity": 0.9 - i / 100} for i in range(params["k"])]
            return [{"key": "q", "hits": hits}]
        candidates = int(params["candidates"])
        self.asked.append((query, candidates))
        own = int(candidates * self.share)
        hits = [{"id": f"index{i}", "similarity": 0.8 - i / 1000} for i in range(own)]
        return [{"key": "q", "seen": candidates, "floor": 0.1, "hits": hits}]


def lookup(store: ScriptedStore, k: int = 10) -> list[dict[str, Any]]:
    return nearest_one(store, "conversation/search_vector", [1.0, 0.0], space="s", k=k)  # type: ignore[arg-type]


def test_a_space_that_fills_the_candidates_is_answered_by_the_index() -> None:
    store = ScriptedStore(share=1.0)
    hits = lookup(store)
    assert [h["id"] for h in hits][:2] == ["index0", "index1"]
    assert store.asked == [("conversation/search_vector", nearest_module.FIRST_CANDIDATES)]


def test_k_hits_are_not_enough_the_top_k_must_not_be_the_last_found() -> None:
    # 64 candidates, 10 of them the space's: exactly k, so the index may have missed some of
    # the space's top k just beyond what it returned; a second, deeper request settles it
    store = ScriptedStore(share=10 / 64)
    hits = lookup(store)
    assert len(store.asked) == 2 and store.asked[1][1] > nearest_module.FIRST_CANDIDATES
    assert len(hits) == 10 and all(str(h["id"]).startswith("index") for h in hits)


def test_a_small_share_of_a_crowded_index_is_scanned_exactly() -> None:
    # 2% of the neighbourhood: the space's top k would lie deeper in the HNSW answer than its
    # recall can be trusted, so the space is scanned
    store = ScriptedStore(share=0.02)
    hits = lookup(store)
    assert store.asked[-1] == ("conversation/search_vector_exact", 0)
    assert all(c <= nearest_module.MAX_CANDIDATES for _, c in store.asked)
    assert hits[0]["id"] == "exact0"
