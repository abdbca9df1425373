"""Retrieval: the candidate sources (one Cypher query each) and the modes built from them.
How hybrid mode orders them is in ranker.py (the learned ranker, by default) and fusion.py;
the paper's `sf` mode in sf.py."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace

from ..errors import InputError
from ..fulltext import stem_lookup
from ..model_files import query_prefix
from ..nearest import Probe, nearest, nearest_one
from ..spaces import validate_space
from .access import Accesses
from .deps import Parts
from .extract import OfflineExtractor
from .fusion import (
    Candidate,
    concept_weights,
    fuse,
    named_speakers,
    query_entity_keys,
    single_source,
    speaker_words,
)
from .models import (
    SEARCH_MODES,
    ConversationConfig,
    SearchHit,
    SearchMode,
    SearchResult,
    SubgraphEdge,
    SubgraphNode,
    TurnInput,
)
from .ranker import chosen_ranker, ranked
from .readers import QueryRow
from .sf import sf_search
from .state import SpaceFacts, SpaceState
from .text import (
    asks_for_several,
    asks_when,
    content_terms,
    name_key,
    query_phrases,
    time_ranges,
)

MAX_QUERY = 2000
Scored = Sequence[tuple[Candidate, float]]


class Searcher:
    def __init__(
        self, parts: Parts, config: ConversationConfig, state: SpaceState, accesses: Accesses
    ) -> None:
        self.parts = parts
        self.config = config
        self.state = state
        self.accesses = accesses
        self._pool: ThreadPoolExecutor | None = None

    def search(
        self,
        query: str,
        *,
        space: str,
        k: int = 10,
        mode: SearchMode = "hybrid",
        touch: bool = True,
    ) -> SearchResult:
        """Ranked turns for a query. Modes: hybrid (default), sf (the paper's entity subgraph),
        vector, fulltext. Returned turns (and sf entities) count as accessed: that write runs
        after the answer (`Accesses.settle` waits for it)."""
        if not isinstance(query, str) or not query.strip():
            raise InputError("the query must not be empty", field="query")
        if len(query) > MAX_QUERY:
            raise InputError(f"the query is longer than {MAX_QUERY} characters", field="query")
        if mode not in SEARCH_MODES:
            raise InputError(f"unknown mode {mode!r}: use {', '.join(SEARCH_MODES)}", field="mode")
        if not 1 <= k <= 1000:
            raise InputError("k must be between 1 and 1000", field="k")
        # The space is checked by the facts read every mode makes (`known`), not by a read of
        # its own before it: an unknown space costs a wasted search, a known one a round trip less.
        validate_space(space)
        self.parts.ensure_embedder_matches()
        query = query.strip()
        nodes: tuple[SubgraphNode, ...] = ()
        edges: tuple[SubgraphEdge, ...] = ()
        if mode == "hybrid":
            hits, facts, ranked_by = self.hybrid(query, space, k)
        else:
            facts, ranked_by = self.state.facts(space), ""
            if mode == "vector":
                hits = single_source(self.dense(query, space, k, facts), "vector", k)
            elif mode == "fulltext":
                hits = single_source(self.lexical(query, space, k, facts), "fulltext", k)
            else:
                hits, nodes, edges = sf_search(
                    self.parts, self.config, self.state, facts, query, space, k
                )
        if not facts.known:
            self.parts.require_space(space)  # raises, naming the known spaces
        if touch and hits:
            turn_ids, entity_ids = [h.turn_id for h in hits], [n.id for n in nodes]
            self.accesses.record(space, turn_ids, entity_ids, facts.clock, later=True)
        return SearchResult(
            query, space, mode, tuple(hits), nodes, edges, facts.speakers, facts.clock, ranked_by
        )

    def search_batch(
        self,
        rows: Iterable[QueryRow],
        *,
        space: str,
        k: int = 10,
        mode: SearchMode = "hybrid",
        touch: bool = True,
    ) -> Iterable[tuple[QueryRow, SearchResult]]:
        """Search many queries with one loaded model; a row's own space wins over `space`."""
        for row in rows:
            yield row, self.search(row.query, space=row.space or space, k=k, mode=mode, touch=touch)

    def close(self) -> None:
        """Stop the helper threads (idle threads also end with the interpreter)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None

    def _executor(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="graphmem-search")
        return self._pool

    # --- candidate sources -----------------------------------------------------------------
    def dense(
        self,
        query: str,
        space: str,
        limit: int,
        facts: SpaceFacts,
        embedding: list[float] | None = None,
        indexed: int | None = None,
    ) -> Scored:
        """The space's turns nearest the query; `indexed`, the turns of every space (read
        here when not given), makes the index lookup ask just enough candidates."""
        if embedding is None:
            embedding = self.parts.embedder.embed([self.query_text(query)])[0]
        vector = embedding
        exact = self._scans(facts)
        if indexed is None and not exact:
            indexed = self.indexed_turns()
        rows = nearest_one(
            self.parts.store,
            "conversation/search_vector",
            vector,
            space=space,
            k=limit,
            exact=exact,
            share=facts.stats.turns / indexed if indexed else None,
        )
        return [(Candidate.from_row(r), float(r["similarity"])) for r in rows]

    def query_text(self, query: str) -> str:
        """What the model embeds for a search query: the query behind the model's query
        instruction, if its model directory names one (BGE models do)."""
        return query_prefix(self.parts.embedder.name) + query

    def indexed_turns(self) -> int:
        rows = self.parts.store.read("conversation/indexed_turns")
        return int(rows[0]["turns"]) if rows else 0  # FalkorDB: no row before any Turn exists

    def _scans(self, facts: SpaceFacts) -> bool:
        """Whether the dense source scans the space exactly instead of asking the index."""
        return facts.stats.turns <= self.config.exact_scan_turns

    def lexical(self, query: str, space: str, limit: int, facts: SpaceFacts) -> Scored:
        terms = content_terms(query, exclude=speaker_words(facts.speakers))
        if not terms:
            terms = content_terms(query)
        if not terms:
            return []
        stats = facts.stats
        w = self.config.weights
        rows = self.parts.store.read(
            "conversation/search_fulltext",
            {
                "space": space,
                "terms": terms,
                "lookups": [stem_lookup(t) for t in terms],
                "turns": max(1, stats.turns),
                "avg_terms": max(1.0, stats.avg_terms),
                "k1": w.bm25_k1,
                "b": w.bm25_b,
                "candidates": limit,
            },
        )
        return [(Candidate.from_row(r), float(r["score"])) for r in rows]

    def graph(self, query: str, space: str, limit: int, facts: SpaceFacts) -> Scored:
        speakers = facts.speakers
        extraction = OfflineExtractor().extract_one(
            TurnInput(session="", turn_id="query", speaker="", text=query), speakers
        )
        names = [e.name for e in extraction.entities if e.type != "date"]
        keys = query_entity_keys(query, names, content_terms(query), speakers)
        if not keys:
            return []
        turns = facts.stats.turns
        rows = self.parts.store.read(
            "conversation/search_graph",
            {
                "space": space,
                "keys": keys,
                "fanout": 100,
                "near_fanout": 20,
                "second_hop": 0.5,
                "max_mentions": max(50, turns // 20),
                "near_max_mentions": 20,
                "candidates": limit,
            },
        )
        return [(Candidate.from_row(r), float(r["score"])) for r in rows]

    def hybrid(self, query: str, space: str, k: int) -> tuple[list[SearchHit], SpaceFacts, str]:
        """The hits, the space's facts, and what ordered the hits (SearchResult.ranked_by)."""
        pool = max(self.config.candidates, k)
        executor = self._executor()
        # The space facts and the size of the shared turn index (unused when the space is
        # scanned) are read, and the lexical and graph sources run, while the query is embedded.
        facts_read = executor.submit(self.state.facts, space)
        indexed = executor.submit(self.indexed_turns)

        def after_facts(source: Callable[[str, str, int, SpaceFacts], Scored]) -> Future[Scored]:
            return executor.submit(lambda: source(query, space, pool, facts_read.result()))

        lexical = after_facts(self.lexical)
        # The learned ranker reads the dense, BM25 and concept lists: no graph source.
        rankers = chosen_ranker(self.config, self.parts.embedder.name)
        graph = None if rankers else after_facts(self.graph)
        w = self.config.weights
        several = asks_for_several(query)
        words = self.probes_for(query, learned=rankers is not None)
        # The query is embedded alone, and the vector source starts on it while the concept
        # probes are embedded: the index lookup's server time overlaps the probes' model time.
        embedding = self.parts.embedder.embed([self.query_text(query)])[0]
        dense_read = executor.submit(
            lambda: self.dense(query, space, pool, facts_read.result(), embedding, indexed.result())
        )
        vectors = [embedding, *self.parts.embedder.embed(words)] if words else [embedding]
        facts = facts_read.result()
        speakers = named_speakers(query, facts.speakers)
        concept = (
            executor.submit(
                self.concepts,
                dict(zip(["", *words], vectors, strict=True)),
                space,
                pool,
                facts,
                speakers,
            )
            if words
            else None
        )
        dense = dense_read.result()
        lexical_rows = lexical.result()
        graph_rows = graph.result() if graph is not None else []
        concept_rows = concept.result() if concept is not None else []
        ranges = time_ranges(query, any_year=True)
        if rankers is not None:
            hits, ranker = ranked(
                rankers, dense, lexical_rows, k, speakers, ranges, concept_rows, several
            )
            return hits, facts, ranker.name if ranker else ""
        dated = (
            self.dated(space, [lexical_rows, dense, graph_rows, concept_rows])
            if w.dated > 0 and asks_when(query)
            else set()
        )
        if several and w.speaker_several != w.speaker:
            w = replace(w, speaker=w.speaker_several)

        def ranking(k: int, spread: Scored = (), diversity: float = 0.0) -> list[SearchHit]:
            return fuse(
                lexical=lexical_rows,
                dense=dense,
                graph=graph_rows,
                weights=w,
                speakers=speakers,
                ranges=ranges,
                k=k,
                spread=spread,
                diversity=diversity,
                concept=concept_rows,
                dated=dated,
            )

        spread: Scored = []
        if w.spread > 0 and w.seeds > 0 and (several or not w.spread_only_several):
            # Two stages: the best turns of the first ranking seed the spreading activation.
            spread = self.spread(ranking(w.seeds), space, pool, facts, speakers)
        hits = ranking(k, spread, w.diversity if several else 0.0)
        return hits, facts, "fusion"

    def dated(self, space: str, sources: Iterable[Scored]) -> set[str]:
        """The candidates that name a time (dated_turns.cypher), for a question asking when.
        Turns reached only by spreading are not asked: spreading seeds from this ranking."""
        ids = sorted({c.id for rows in sources for c, _ in rows})
        if not ids:
            return set()
        rows = self.parts.store.read(
            "conversation/dated_turns", {"space": space, "ids": ids, "type": "date"}
        )
        return {str(r["id"]) for r in rows}

    def concept_probes(self, query: str) -> list[str]:
        """The query's words the concept source probes the entity index with (none when the
        source is off for this query); embedded right after the query."""
        return self.probes_for(
            query, learned=bool(chosen_ranker(self.config, self.parts.embedder.name))
        )

    def probes_for(self, query: str, *, learned: bool) -> list[str]:
        """The concept probes for a search ranked by the learned ranker (which weighs the source
        itself, for every question: the fusion's switches do not apply) or by the fusion."""
        w = self.config.weights
        fusion_skips = w.concept <= 0 or (w.concept_only_several and not asks_for_several(query))
        if w.concept_roots <= 0 or (not learned and fusion_skips):
            return []
        return query_phrases(query, limit=w.concept_probes)

    def spread(
        self,
        seeds: Sequence[SearchHit],
        space: str,
        limit: int,
        facts: SpaceFacts,
        speakers: Iterable[str] = (),
    ) -> Scored:
        """Turns reached from the seed turns through the specific entities they mention
        (search_spread.cypher); a seed's weight is its fused score over the best one's."""
        best = max((h.score for h in seeds), default=0.0)
        if best <= 0:
            return []
        rows = self.parts.store.read(
            "conversation/search_spread",
            {
                "space": space,
                "seeds": [{"id": h.turn_id, "weight": h.score / best} for h in seeds],
                "max_mentions": max(20, facts.stats.turns // 50),
                "speakers": sorted(speakers) if self.config.weights.spread_speakers else [],
                "candidates": limit,
            },
        )
        return [(Candidate.from_row(r), float(r["score"])) for r in rows]

    def concepts(
        self,
        probes: dict[str, list[float]],
        space: str,
        limit: int,
        facts: SpaceFacts,
        speakers: Iterable[str] = (),
    ) -> Scored:
        """Turns mentioning the entities nearest to the query's words (and to the whole query,
        probe key "") over the entity vector index (search_concepts.cypher). Participants'
        names and dates are not concepts: the speaker and time signals handle them."""
        w = self.config.weights
        skip = speaker_words(facts.speakers)
        wanted = [
            Probe(words, vector)
            for words, vector in probes.items()
            if not set(words.split()) & skip
        ]
        per_probe = nearest(
            self.parts.store,
            "conversation/sf_roots",
            wanted,
            space=space,
            k=w.concept_roots,
            min_similarity=w.concept_min_similarity,
            exact=facts.stats.turns <= self.config.exact_scan_turns,
        )
        named = {name_key(s) for s in facts.speakers}
        weight = concept_weights(per_probe, named)
        if not weight:
            return []
        rows = self.parts.store.read(
            "conversation/search_concepts",
            {
                "space": space,
                "entities": [{"id": eid, "weight": v} for eid, v in sorted(weight.items())],
                "max_mentions": max(20, facts.stats.turns // 50),
                "speakers": sorted(speakers),
                "candidates": limit,
            },
        )
        return [(Candidate.from_row(r), float(r["score"])) for r in rows]
