"""Nearest neighbours within one space, over vector indexes that every space shares.

Neo4j 5 and FalkorDB have one vector index per label for the whole database, and neither
filters inside it: a query for the k nearest turns of space A gets the k nearest turns of every
space, of which A's may be none. Every lookup therefore goes through `nearest()`, which asks the
index for more candidates than it needs and knows when it has seen enough:

- an index query says, per probe, how many candidates the index gave, the lowest index
  similarity among them, and the hits: the candidates that are the space's and pass the
  lookup's filters, each with its exact cosine similarity (FalkorDB's index score is exact
  at float32; Neo4j's is quantised and is recomputed from the stored vectors). Most also say
  how many nodes the index can hold at most, `indexed` (not the turn search, docs/neo4j.md):
  its label's count, which both engines keep (Neo4j's count store, FalkorDB's
  `db.meta.stats()`). FalkorDB's queries return one row per candidate (the probe's `key`,
  the index's `similarity`, the `hit` or null) and one row with no key that holds `indexed`:
  FalkorDB copies every node and map it collects into a list, which made `collect()` three
  times the cost of the index search itself (400 turn candidates: 19.3 ms against 6.4 ms
  streamed). Neo4j's return one row per probe, also for a probe the index gave nothing
  (`key`, `indexed`, `seen`, `floor`, `hits`): the Python driver's cost is per record, and
  220 turn candidates decoded as one record instead of 220 took 4.0 ms instead of 6.9 at
  10,000 turns on Neo4j 5.26. They also say how many candidates are the space's and pass
  the lookup's filters (`own`) and send back, with their exact cosines, only those whose
  index similarity is within RERANK_MARGIN of the k-th best and of the minimum similarity
  (the exact cosine reads each candidate's stored vector, most of a lookup's time; the turn
  search sends only the k best of those by exact cosine: decoding its hits was a fifth of its
  client time). The lookups other than the turn search also rescore their first
  max(k, ERROR_SAMPLE) candidates. Each says how far the index similarities it rescored lay
  from their exact cosines at most (`index_error`): a probe
  where an index similarity lies further from its exact cosine than the store's declared
  error goes to the exact scan, since the rules below assume the index is that close
  (sparse vectors on Neo4j 5.26 are not);
- a probe is settled when its candidates hold 2k of the space's nodes (HNSW is approximate,
  and least exact deep in its answer: the space's top k must sit in the first half of what
  it found), when the index gave as many candidates as its label has nodes (it gave all it
  holds, none for an empty index), or when the index gave all the candidates asked and the
  lowest of them is below the lookup's minimum similarity (nothing unseen can qualify);
- otherwise, if the index gave all it was asked, the space's share of the candidates sets a
  second, larger request; what is still unsettled after it, or what the index could not give
  as many candidates for as asked, is answered by an exact scan of the space
  (`<query>_exact`). An HNSW graph returns fewer nodes than asked not only when the index is
  small: identical vectors in many spaces (the same texts in several tenants) make cliques the
  search cannot leave, so a short answer is taken as "the index ran out" only when it counts
  every node of the label.

So a result never silently lacks what the space holds; the index only makes it cheap.

A store whose vector indexes filter by space inside the index (`store.vector_space_filter`:
Neo4j 2026 with Cypher 25's SEARCH, queries.py) gives only the space's candidates: the first
request still asks max(4k, FILTERED_CANDIDATES) of them (the index's quantised HNSW search is
more exact when it looks deeper; the exact cosine reranks them), and a short answer there
means the space holds no more (it is settled, never scanned). Only filters beyond the space
(an exclusion list, a status) can still leave a probe unsettled, with the same second request
and scan as above. Both queries of a lookup take `$probes` (a list of `{key, embedding}`),
`$space`, `$k` and `$min_similarity`; the index query also `$candidates` and
`$rerank_margin`; each hit is a map
with at least `id` and `similarity`. The exact query returns one row per probe: `key` and
its `hits`, best first. A lookup whose similarities are stored (edges between similar queries
or tasks) also returns the hit's `embedding` when `$with_vectors` is true: `rescore=True`
recomputes each similarity here from the two vectors at float32, the engines' vector
precision, because FalkorDB computes cosines in float32 and Neo4j in float64, which differ in
the seventh digit. A lookup that only ranks skips it (and the vectors on the wire).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import IndexUnavailable
from .store.base import GraphStore, Row

FIRST_CANDIDATES = 64
"""Candidates asked of the index in the first round (at least 4k)."""
FILTERED_CANDIDATES = 256
"""The first request of an index that filters by space itself (Neo4j 2026's SEARCH): every
candidate is the space's, and its quantised HNSW search is more exact when it looks deeper.
With 100 spaces of 2,000 turns on one index, 64 gave recall@10 0.986 against an exact scan
(p95 38 ms) and 256 gave 1.000 (p95 51-54 ms over two runs; benchmarks/nearest_crowding.py)."""
MAX_CANDIDATES = 512
"""The deepest request made of the index. Deeper in an HNSW answer its recall falls: a space
whose top k lie that deep (its share of the neighbourhood is small, as with 100 spaces on one
topic) is scanned exactly, which costs what the space holds, not what the index holds. With
100 spaces sharing an index, a limit of 4,096 gave recall@10 0.975-0.993 against an exact
scan, 512 gave 1.000 and a lower p50 (benchmarks/nearest_crowding.py)."""
SETTLE_FACTOR = 2
"""A probe is settled by the index when its candidates hold SETTLE_FACTOR·k of the space's
nodes, so that the space's top k are not the last of what the index found."""
SHARE_MARGIN = 1.1
"""With a known share, the first request asks this much above the settle line."""
FLOOR_MARGIN = 0.01
"""The least margin the floor rule keeps, so that it never settles a probe that an unseen node
could still qualify for; a store whose index similarities are quantised widens it to the error
it declares (`vector_index_error`)."""
QUANTISED_ERROR = 0.03
"""How far a quantised index's similarity (Neo4j 5.26's `db.index.vector.queryNodes`) is taken
to lie from the exact cosine at most: over 60 hybrid searches of 6,000 synthetic turns,
MiniLM's largest was 0.021 (median 0.011 per probe), random 384-d vectors' 0.024. A store says
its own (`vector_index_error`: 0 where the index's scores are exact, FalkorDB and Neo4j's
SEARCH); one that does not say is taken to be quantised."""
ERROR_SAMPLE = 8
"""An index query that reads exact cosines only near the top still reads them for at least its
first max(k, ERROR_SAMPLE) candidates, and says how far their index similarities lay from them
(`index_error`): where no candidate lies near a high minimum similarity (de-duplication at
0.92), these are what shows whether the index is as close as the rerank margin assumes."""
RERANK_MARGIN = 2 * FLOOR_MARGIN
"""The rerank margin of an index with exact scores. An index query may send back
(`$rerank_margin`) only the space's candidates whose index similarity is within a margin of
the k-th best index similarity among them, and say how many the space had (`own`). If the
index is off by at most e, a true top-k node's index similarity is at least the k-th index
similarity minus 2e (at least k nodes score that high on the index, so the true k-th is at
most e below it, and the node at most e below the true k-th), and one that reaches the
lookup's minimum similarity has an index similarity of at least that minimum minus e: so the
margin is twice the error the store declares (`margins`). Other vectors can fare worse than
the declared error (sparse ones: up to ~0.46 on Neo4j 5.26, where the index's HNSW search then
also misses near nodes), so such a query also says how far the index similarities it
rescored lay from their exact cosines (`index_error`): a probe where one lies further than the
declared error is answered by the exact scan."""


def margins(store: object) -> tuple[float, float]:
    """(floor margin, rerank margin) for a store's vector index: its declared error, at least
    FLOOR_MARGIN, and twice that."""
    error = max(float(getattr(store, "vector_index_error", QUANTISED_ERROR)), FLOOR_MARGIN)
    return error, 2 * error


@dataclass(frozen=True)
class Probe:
    key: str
    embedding: Sequence[float]


def nearest(
    store: GraphStore,
    query: str,
    probes: Sequence[Probe],
    *,
    space: str,
    k: int,
    min_similarity: float = -1.0,
    params: Mapping[str, Any] | None = None,
    exact: bool = False,
    rescore: bool = False,
    share: float | None = None,
) -> dict[str, list[Row]]:
    """key → the space's k nodes closest to that probe (most similar first, ties by id).

    `exact` skips the index (the caller knows the space is small); `rescore` gives every
    engine the same similarity to the last bit (see above); `share`, the space's nodes over
    the index's when the caller knows it, lets the first request ask just past the settle line
    (a space alone in its index: 2.2k candidates instead of 4k; a wrong share costs a
    second request, never a wrong answer)."""
    if k < 1 or not probes:
        return {p.key: [] for p in probes}
    floor_margin, rerank_margin = margins(store)
    base = {
        **(params or {}),
        "space": space,
        "k": k,
        "min_similarity": min_similarity,
        "with_vectors": rescore,
        "rerank_margin": rerank_margin,
        "error_sample": max(k, ERROR_SAMPLE),
    }
    pending = {p.key: p for p in probes}
    scan: dict[str, Probe] = {}
    found: dict[str, list[Row]] = {}
    filtered = bool(getattr(store, "vector_space_filter", False))  # a wrapper may not say
    candidates = max(4 * k, FILTERED_CANDIDATES if filtered else FIRST_CANDIDATES)
    if share is not None and share > 0 and not filtered:
        candidates = min(candidates, math.ceil(SETTLE_FACTOR * SHARE_MARGIN * k / min(share, 1.0)))
    for _round in (1, 2):
        if exact or not pending:
            break
        wire = _wire(pending.values())
        try:
            rows = store.read(query, {**base, "probes": wire, "candidates": candidates})
        except IndexUnavailable:
            break  # the index is being rebuilt (store/falkordb_vectors.py): scan instead
        answers = _answers(rows, pending)
        shares: list[float] = []
        for key in list(pending):
            answer = answers.get(key)
            if answer is not None and answer.index_off(floor_margin):
                scan[key] = pending.pop(key)  # neither its order nor its rerank can be trusted
            elif answer is None and filtered:
                found[key] = []  # the space has no node in the index
                del pending[key]
            elif answer is not None and answer.settled(
                k, candidates, min_similarity, filtered, floor_margin
            ):
                found[key] = _top(answer.hits, k)
                del pending[key]
            elif answer is not None and answer.seen >= candidates:
                shares.append(answer.own / candidates)
            else:
                shares.append(0.0)  # a short answer: only a scan is sure
        seen_share = min(shares, default=0.0)
        if seen_share == 0.0:
            break
        # aim above the settle line, so that sampling noise in the share rarely misses it
        candidates = max(math.ceil((SETTLE_FACTOR + 1) * k / seen_share), 2 * candidates)
        if candidates > MAX_CANDIDATES:
            break
    pending.update(scan)
    if pending:
        rows = store.read(f"{query}_exact", {**base, "probes": _wire(pending.values())})
        returned = {str(row["key"]): row for row in rows}
        for key in pending:
            row = returned.get(key)
            found[key] = _top(list(row["hits"]), k) if row is not None else []
    if rescore:
        by_key = {p.key: _float32(p.embedding) for p in probes}
        for key, hits in found.items():
            for hit in hits:
                hit["similarity"] = _cosine(by_key[key], _float32(hit.pop("embedding")))
            _top(hits, k)
    return found


def nearest_one(
    store: GraphStore,
    query: str,
    embedding: Sequence[float],
    *,
    space: str,
    k: int,
    min_similarity: float = -1.0,
    params: Mapping[str, Any] | None = None,
    exact: bool = False,
    rescore: bool = False,
    share: float | None = None,
) -> list[Row]:
    """`nearest()` for a single vector."""
    return nearest(
        store,
        query,
        [Probe("q", embedding)],
        space=space,
        k=k,
        min_similarity=min_similarity,
        params=params,
        exact=exact,
        rescore=rescore,
        share=share,
    )["q"]


@dataclass
class _Answer:
    """What the index gave for one probe: how many candidates, the lowest similarity among
    them, those that are hits (the space's, passing the lookup's filters), and the most nodes
    the index can hold (its label's count; None when the query does not say)."""

    seen: int = 0
    floor: float | None = None
    hits: list[Row] = field(default_factory=list)
    indexed: int | None = None
    own: int = 0
    """The space's candidates that passed the filters: the hits, or more when the query sent
    back only those within RERANK_MARGIN of the k-th."""
    index_error: float = 0.0
    """The furthest an index similarity lay from its exact cosine among the candidates the
    query rescored, when it says (`index_error`)."""

    def index_off(self, error: float) -> bool:
        """Whether an index similarity lies further from its exact cosine than `error`: the
        settle rules and the rerank's margin assume it does not."""
        return self.index_error > error

    def settled(
        self,
        k: int,
        asked: int,
        min_similarity: float,
        filtered: bool = False,
        floor_margin: float = FLOOR_MARGIN,
    ) -> bool:
        """Whether the index's answer holds the space's top k for this probe (`filtered`: the
        index gave the space's nodes only, so a short answer is all the space holds)."""
        if self.own >= SETTLE_FACTOR * k:
            return True
        if self.seen == self.indexed:
            return True  # the index gave every node it can hold (none, when it is empty)
        full = self.seen >= asked
        if filtered and not full:
            return True
        return full and self.floor is not None and self.floor + floor_margin < min_similarity


def _answers(rows: Sequence[Row], keys: Iterable[str] = ()) -> dict[str, _Answer]:
    """Per probe key, from rows of either shape (see the module's docstring): one per
    candidate (`similarity`, `hit`) or one per probe (`seen`, `floor`, `hits`), with the
    label's count (`indexed`) on a row of its own or on each. When the count is known, each
    of `keys` has an answer, none seen for a probe without rows."""
    answers: dict[str, _Answer] = {}
    indexed = None
    for row in rows:
        if row.get("indexed") is not None:
            indexed = int(row["indexed"])
        if row["key"] is None:
            continue  # the row of the count alone
        answer = answers.setdefault(str(row["key"]), _Answer())
        if "seen" in row:
            seen, floor, hits = int(row["seen"]), row["floor"], list(row["hits"])
            own = int(row["own"]) if row.get("own") is not None else len(hits)
        else:
            seen, floor = 1, row["similarity"]
            hits = [row["hit"]] if row["hit"] is not None else []
            own = len(hits)
        answer.seen += seen
        answer.own += own
        if row.get("index_error") is not None:
            answer.index_error = max(answer.index_error, float(row["index_error"]))
        if floor is not None:  # none when the index gave nothing
            floor = float(floor)
            answer.floor = floor if answer.floor is None else min(answer.floor, floor)
        answer.hits.extend(hits)
    if indexed is not None:
        for key in keys:
            answers.setdefault(key, _Answer())
        for answer in answers.values():
            answer.indexed = indexed
    return answers


def _wire(probes: Any) -> list[dict[str, Any]]:
    return [{"key": p.key, "embedding": list(p.embedding)} for p in probes]


def _float32(vector: Sequence[float]) -> array[float]:
    return array("f", vector)


def _cosine(a: array[float], b: array[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))
    return dot / norm if norm else 0.0


def _top(hits: list[Row], k: int) -> list[Row]:
    hits.sort(key=lambda h: (-float(h["similarity"]), str(h["id"])))
    return hits[:k]
