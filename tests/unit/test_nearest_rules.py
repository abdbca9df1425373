"""When `nearest()` trusts the shared vector index and when it scans the space exactly."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphmem_neo4j import nearest as nearest_module
from graphmem_neo4j.nearest import Probe, nearest, nearest_one


class ScriptedStore:
    """Answers the index query with `own` of the space's nodes among `seen` candidates (the
    share stays the same at every depth), and the exact query with the space's true top k."""

    def __init__(
        self,
        share: float,
        per_probe: bool = False,
        send: int | None = None,
        index_error: float | None = None,
    ) -> None:
        self.share = share
        self.index_error = index_error
        """How far the index similarities lay from the exact ones, as Neo4j's index queries
        report it (`index_error`; None: not reported)."""
        self.per_probe = per_probe
        """Neo4j's shape: one row per probe (seen, floor, hits), not one per candidate."""
        self.send = send
        """Per probe, send back only the best `send` hits and say how many there were (`own`),
        as Neo4j's turn search does."""
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
        # one row per candidate: the space's first (a hit each), then the other spaces'
        rows = [
            {
                "key": "q",
                "similarity": 0.8 - i / 1000,
                "hit": {"id": f"index{i}", "similarity": 0.8 - i / 1000} if i < own else None,
            }
            for i in range(candidates)
        ]
        if not self.per_probe:
            return rows
        hits = [r["hit"] for r in rows if r["hit"] is not None]
        row = {"key": "q", "seen": len(rows), "floor": min(r["similarity"] for r in rows)}
        if self.index_error is not None:
            row["index_error"] = abs(self.index_error)
        if self.send is not None:
            row["own"], hits = len(hits), hits[: self.send]
        return [{**row, "hits": hits}]


def lookup(store: ScriptedStore, k: int = 10) -> list[dict[str, Any]]:
    return nearest_one(store, "conversation/search_vector", [1.0, 0.0], space="s", k=k)  # type: ignore[arg-type]


def test_one_row_per_probe_is_read_as_one_row_per_candidate() -> None:
    for share in (1.0, 10 / 64, 0.01):
        streamed, grouped = ScriptedStore(share), ScriptedStore(share, per_probe=True)
        assert lookup(grouped) == lookup(streamed)
        assert grouped.asked == streamed.asked


def test_an_answer_that_sends_only_the_best_hits_is_judged_by_how_many_the_space_had() -> None:
    """Neo4j's turn search sends back only the space's candidates near its k-th best, and
    `own`, how many it had: settling and the size of a second request follow `own`."""
    for share in (1.0, 20 / 64, 10 / 64, 0.01):
        full = ScriptedStore(share, per_probe=True)
        cut = ScriptedStore(share, per_probe=True, send=12)
        assert lookup(cut) == lookup(full)
        assert cut.asked == full.asked


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


class RowsStore:
    """Answers the index query with the given candidate rows, the exact query with one hit."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows
        self.asked: list[str] = []
        self.params: list[Mapping[str, Any]] = []

    def read(self, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        self.asked.append(query)
        self.params.append(params or {})
        if query.endswith("_exact"):
            return [{"key": "q", "hits": [{"id": "exact0", "similarity": 0.9}]}]
        return self.rows


def candidate(similarity: float, hit: bool) -> dict[str, Any]:
    return {
        "key": "q",
        "similarity": similarity,
        "hit": {"id": f"n{similarity}", "similarity": similarity} if hit else None,
    }


def test_a_full_answer_ending_below_the_threshold_settles_with_few_hits() -> None:
    # 64 candidates, the lowest at 0.2: nothing the index did not return reaches 0.5
    rows = [candidate(0.9, True)] + [candidate(0.9 - i / 100, False) for i in range(1, 64)]
    store = RowsStore(rows)
    hits = nearest_one(store, "q", [1.0], space="s", k=10, min_similarity=0.5)  # type: ignore[arg-type]
    assert store.asked == ["q"]
    assert [h["id"] for h in hits] == ["n0.9"]


def test_a_floor_within_the_margin_of_the_threshold_is_not_trusted() -> None:
    # the lowest candidate sits just under the threshold, within Neo4j's quantisation margin
    rows = [candidate(0.9, True)] + [candidate(0.5, False) for _ in range(63)]
    store = RowsStore(rows)
    nearest_one(store, "q", [1.0], space="s", k=10, min_similarity=0.505)  # type: ignore[arg-type]
    assert store.asked[-1] == "q_exact"


def test_a_short_answer_is_scanned_exactly() -> None:
    # fewer candidates than asked: orphaned or clustered HNSW entries, not an empty index
    store = RowsStore([candidate(0.9 - i / 100, True) for i in range(12)])
    hits = nearest_one(store, "q", [1.0], space="s", k=10)  # type: ignore[arg-type]
    assert store.asked == ["q", "q_exact"]
    assert hits[0]["id"] == "exact0"


def test_a_known_share_asks_just_past_the_settle_line() -> None:
    # a space alone in its index: 2.2k candidates instead of 4k, and settled by them
    store = ScriptedStore(share=1.0)
    hits = nearest_one(store, "conversation/search_vector", [1.0], space="s", k=100, share=1.0)  # type: ignore[arg-type]
    assert store.asked == [("conversation/search_vector", 221)]
    assert len(hits) == 100


def test_a_wrong_share_costs_a_second_request_not_a_wrong_answer() -> None:
    # the caller thought the space was the whole index; it is a quarter of it
    store = ScriptedStore(share=0.25)
    hits = nearest_one(store, "conversation/search_vector", [1.0], space="s", k=10, share=1.0)  # type: ignore[arg-type]
    assert [c for _, c in store.asked][:1] == [22]
    assert len(store.asked) >= 2
    assert len(hits) == 10


class FilteredStore(RowsStore):
    """An index that filters by space inside itself (Neo4j with vector SEARCH)."""

    vector_space_filter = True


def test_a_filtered_index_settles_a_short_answer_without_a_scan() -> None:
    # 12 of the space's nodes where more were asked: the space holds no more
    store = FilteredStore([candidate(0.9 - i / 100, True) for i in range(12)])
    hits = nearest_one(store, "q", [1.0], space="s", k=10)  # type: ignore[arg-type]
    assert store.asked == ["q"]
    assert len(hits) == 10 and hits[0]["id"] == "n0.9"


def test_a_filtered_index_is_asked_deeper_than_a_shared_one() -> None:
    asked: list[int] = []

    class Counting(FilteredStore):
        def read(self, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
            assert params is not None
            asked.append(int(params["candidates"]))
            return super().read(query, params)

    store = Counting([candidate(0.9 - i / 1000, True) for i in range(64)])
    nearest_one(store, "q", [1.0], space="s", k=10)  # type: ignore[arg-type]
    assert asked == [nearest_module.FILTERED_CANDIDATES] and store.asked == ["q"]
    assert nearest_module.FILTERED_CANDIDATES > nearest_module.FIRST_CANDIDATES


def test_a_filtered_index_asks_deeper_when_other_filters_leave_too_few() -> None:
    # the index gave all it was asked, all the space's, but only 16 passed the lookup's own
    # filters: a deeper request, whose short answer is then all the space holds
    first = nearest_module.FILTERED_CANDIDATES
    rows = [candidate(0.9 - i / 1000, i < 16) for i in range(first)]
    store = FilteredStore(rows)
    hits = nearest_one(store, "q", [1.0], space="s", k=10)  # type: ignore[arg-type]
    assert store.asked == ["q", "q"]
    assert len(hits) == 10


def test_a_filtered_index_still_scans_when_other_filters_pass_too_few() -> None:
    # 3 pass: the deeper request would exceed MAX_CANDIDATES, so the space is scanned
    rows = [candidate(0.9 - i / 1000, i < 3) for i in range(nearest_module.FILTERED_CANDIDATES)]
    store = FilteredStore(rows)
    nearest_one(store, "q", [1.0], space="s", k=10)  # type: ignore[arg-type]
    assert store.asked == ["q", "q_exact"]


def test_a_filtered_index_with_nothing_of_the_space_answers_empty() -> None:
    store = FilteredStore([])
    assert nearest_one(store, "q", [1.0], space="s", k=10) == []  # type: ignore[arg-type]
    assert store.asked == ["q"]


def per_probe(rows: list[dict[str, Any]], indexed: int) -> list[dict[str, Any]]:
    """Neo4j's shape of the same candidates: one row for the probe, the label's count on it
    (floor null and no hits when the index gave nothing)."""
    return [
        {
            "key": "q",
            "indexed": indexed,
            "seen": len(rows),
            "floor": min((r["similarity"] for r in rows), default=None),
            "hits": [r["hit"] for r in rows if r["hit"] is not None],
        }
    ]


def per_candidate(rows: list[dict[str, Any]], indexed: int) -> list[dict[str, Any]]:
    """FalkorDB's shape: a row per candidate, then the label's count on a row with no key."""
    count = {"key": None, "similarity": None, "hit": None, "indexed": indexed}
    return [{**r, "indexed": None} for r in rows] + [count]


SHAPES = (per_probe, per_candidate)


def test_a_short_answer_of_every_indexed_node_is_settled_without_a_scan() -> None:
    # 12 candidates where 64 were asked, and the label has 12 nodes: nothing is unseen
    candidates = [candidate(0.9 - i / 100, i % 2 == 0) for i in range(12)]
    for shape in SHAPES:
        store = RowsStore(shape(candidates, 12))
        hits = nearest_one(store, "q", [1.0], space="s", k=10)  # type: ignore[arg-type]
        assert store.asked == ["q"], shape.__name__
        assert [h["id"] for h in hits] == [f"n{0.9 - i / 100}" for i in range(0, 12, 2)]


def test_a_short_answer_below_the_label_count_is_still_scanned() -> None:
    # 12 of 13: the one unseen (a stale entry's shadow, a clique) may be the space's best
    candidates = [candidate(0.9 - i / 100, True) for i in range(12)]
    for shape in SHAPES:
        store = RowsStore(shape(candidates, 13))
        hits = nearest_one(store, "q", [1.0], space="s", k=10)  # type: ignore[arg-type]
        assert store.asked == ["q", "q_exact"], shape.__name__
        assert hits[0]["id"] == "exact0"


def test_an_empty_index_answers_empty_without_a_scan() -> None:
    for shape in SHAPES:
        store = RowsStore(shape([], 0))
        assert nearest_one(store, "q", [1.0], space="s", k=10) == [], shape.__name__  # type: ignore[arg-type]
        assert store.asked == ["q"], shape.__name__


def test_a_probe_the_index_gave_nothing_while_it_holds_nodes_is_scanned() -> None:
    # FalkorDB's stale entries can shadow every live node of a probe's neighbourhood
    for shape in SHAPES:
        store = RowsStore(shape([], 5))
        hits = nearest_one(store, "q", [1.0], space="s", k=10)  # type: ignore[arg-type]
        assert store.asked == ["q", "q_exact"], shape.__name__
        assert [h["id"] for h in hits] == ["exact0"]


def test_the_count_settles_each_probe_of_a_batch() -> None:
    # two probes, one row each from FalkorDB and the count row: both are settled
    rows = [
        {"key": key, "similarity": 0.5, "hit": {"id": key, "similarity": 0.5}, "indexed": None}
        for key in ("a", "b")
    ] + [{"key": None, "similarity": None, "hit": None, "indexed": 1}]
    store = RowsStore(rows)
    found = nearest(store, "q", [Probe("a", [1.0]), Probe("b", [0.0])], space="s", k=3)  # type: ignore[arg-type]
    assert store.asked == ["q"]
    assert {key: [h["id"] for h in hits] for key, hits in found.items()} == {
        "a": ["a"],
        "b": ["b"],
    }


def test_an_index_further_off_than_the_margin_settles_nothing() -> None:
    """The settle rules and the rerank's margin assume the index's similarities lie within the
    store's declared error of the exact ones (QUANTISED_ERROR when it declares none); where a
    hit shows they do not, the probe is scanned, and the index's own similarity never
    reaches the caller."""
    error = nearest_module.QUANTISED_ERROR
    close = ScriptedStore(1.0, per_probe=True, index_error=error / 2)
    hits = lookup(close)
    assert [h["id"] for h in hits][:1] == ["index0"]
    assert close.asked == [("conversation/search_vector", nearest_module.FIRST_CANDIDATES)]
    off = ScriptedStore(1.0, per_probe=True, index_error=-1.5 * error)
    assert [h["id"] for h in lookup(off)][:1] == ["exact0"]
    assert off.asked == [
        ("conversation/search_vector", nearest_module.FIRST_CANDIDATES),
        ("conversation/search_vector_exact", 0),
    ]


def test_an_index_error_a_probe_reports_sends_it_to_the_scan() -> None:
    """The entity-like lookups send back no hit's index similarity but the furthest any of
    their rescored candidates lay from its exact cosine (`index_error`); they rescore at least
    max(k, ERROR_SAMPLE) candidates, so a probe whose hits are all below a high minimum still
    shows the error."""
    error = nearest_module.QUANTISED_ERROR

    def answer(index_error: float) -> list[dict[str, Any]]:
        return [
            {
                "key": "q",
                "seen": 64,
                "floor": 0.2,
                "own": 64,
                "index_error": index_error,
                "hits": [{"id": "index0", "similarity": 0.95}],
            }
        ]

    close = RowsStore(answer(error / 2))
    hits = nearest_one(close, "q", [1.0], space="s", k=1, min_similarity=0.92)  # type: ignore[arg-type]
    assert close.asked == ["q"] and [h["id"] for h in hits] == ["index0"]
    off = RowsStore(answer(1.5 * error))
    hits = nearest_one(off, "q", [1.0], space="s", k=1, min_similarity=0.92)  # type: ignore[arg-type]
    assert off.asked == ["q", "q_exact"] and [h["id"] for h in hits] == ["exact0"]
    assert off.params[0]["error_sample"] == nearest_module.ERROR_SAMPLE


def test_the_margins_follow_the_error_a_store_declares() -> None:
    class Exact:
        vector_index_error = 0.0

    class Quantised:
        vector_index_error = 0.05

    floor = nearest_module.FLOOR_MARGIN
    assert nearest_module.margins(Exact()) == (floor, 2 * floor)
    assert nearest_module.margins(Quantised()) == (0.05, 0.1)
    assert nearest_module.margins(object()) == (
        nearest_module.QUANTISED_ERROR,
        2 * nearest_module.QUANTISED_ERROR,
    )
