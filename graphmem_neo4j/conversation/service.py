"""The conversation layer's service: the only code that writes its part of the graph.

Ingestion (per batch, each step one idempotent UNWIND statement, in an order that keeps the
graph consistent if the process dies between any two of them):

    sessions → entities → turns (+ HAS_TURN, complete=false) → MENTIONS, RELATES, NEXT
    → session counters recomputed → turns complete=true

A re-run skips turns stored complete with the same content and redoes the rest.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError, NotFound
from ..nearest import Probe, nearest, nearest_one
from ..schema import labels as known_labels
from ..schema import now_ms
from ..schema import relationships as known_relationships
from . import forgetting
from .dedup import cluster_new_names, entity_id
from .extract import Extractor, LLMExtractor, OfflineExtractor
from .fusion import (
    Candidate,
    fuse,
    named_speakers,
    query_entity_keys,
    single_source,
    speaker_words,
)
from .models import (
    SEARCH_MODES,
    ConversationConfig,
    ForgetReport,
    ForgettingConfig,
    IngestReport,
    RestoreReport,
    SearchHit,
    SearchMode,
    SearchResult,
    SubgraphEdge,
    SubgraphNode,
    TurnExtraction,
    TurnInput,
)
from .readers import InputFormat, QueryRow, read_turns
from .text import content_hash, content_terms, name_key, stable_id, term_count, time_ranges

if TYPE_CHECKING:
    from ..memory import GraphMemory

Progress = Callable[[int], None]
MAX_QUERY = 2000


@dataclass(frozen=True)
class SpaceStats:
    sessions: int
    turns: int
    terms: int

    @property
    def avg_terms(self) -> float:
        return self.terms / self.turns if self.turns else 1.0


def embedding_text(speaker: str, text: str) -> str:
    """What a turn's embedding is computed from: who said it matters to the meaning."""
    return f"{speaker}: {text}"


class ConversationService:
    def __init__(self, memory: GraphMemory, config: ConversationConfig | None = None) -> None:
        self.memory = memory
        self.config = config or ConversationConfig()
        self._entity_cache: dict[str, dict[str, str]] = {}
        self._speakers: dict[str, frozenset[str]] = {}
        self._stats: dict[str, SpaceStats] = {}
        self._entity_counts: dict[str, int] = {}
        self._clocks: dict[str, int] = {}
        self._pool: ThreadPoolExecutor | None = None

    # --- ingestion -----------------------------------------------------------------------
    def ingest_file(
        self,
        path: Path,
        *,
        fmt: InputFormat = "jsonl",
        space: str | None = None,
        on_progress: Progress | None = None,
        forget_every: int | None = None,
    ) -> list[IngestReport]:
        """Read and validate the whole file first (nothing is written if any row is bad),
        then ingest it: one report per target space."""
        groups = read_turns(path, fmt, space=space)
        default = self.memory.settings.space
        return [
            self.add_turns(
                turns,
                space=target or default,
                on_progress=on_progress,
                forget_every=forget_every,
            )
            for target, turns in groups
        ]

    def add_turns(
        self,
        turns: Sequence[TurnInput],
        *,
        space: str,
        on_progress: Progress | None = None,
        forget_every: int | None = None,
    ) -> IngestReport:
        """Store turns (idempotent on (space, turn_id)); runs forgetting every
        `forget_every` turns (default: the configured interval; 0 disables)."""
        _check_unique(turns)
        memory = self.memory
        memory.ensure_space(space)
        memory.ensure_embedder_matches()
        started = time.perf_counter()  # model load and schema set-up are not ingestion
        store = memory.store
        extractor = self._extractor()
        every = self.config.forgetting.every if forget_every is None else forget_every

        existing: dict[str, Mapping[str, Any]] = {}
        ids = [t.turn_id for t in turns]
        for start in range(0, len(ids), 1000):
            for row in store.read(
                "conversation/existing_turns", {"space": space, "ids": ids[start : start + 1000]}
            ):
                existing[str(row["id"])] = row
        plans = self._plan(turns, space, existing)
        todo = [p for p in plans if not p.skip]
        if on_progress is not None and len(plans) > len(todo):
            on_progress(len(plans) - len(todo))
        counters: dict[str, int] = defaultdict(int)
        runs: list[ForgetReport] = []
        last_run = self._last_forget_at(space) if every > 0 else None
        speakers = frozenset(self.speakers(space) | {t.speaker for t in turns})
        lock = threading.Lock()

        def embed(texts: Sequence[str]) -> list[list[float]]:
            with lock:  # one model call at a time; tokenizers are not re-entrant
                return memory.embedder.embed(texts)

        def prepare(batch: Sequence[_TurnPlan]) -> tuple[list[list[float]], list[TurnExtraction]]:
            texts = [embedding_text(p.turn.speaker, p.turn.text) for p in batch]
            return embed(texts), extractor.extract([p.turn for p in batch], speakers)

        # Batch i+1 is embedded and extracted while batch i is written: the model and the
        # engine work at the same time.
        size = self.config.batch_size
        batches = [todo[i : i + size] for i in range(0, len(todo), size)]
        clock = self.clock(space)
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphmem-ingest") as worker:
            upcoming = worker.submit(prepare, batches[0]) if batches else None
            for index, batch in enumerate(batches):
                assert upcoming is not None
                vectors, extractions = upcoming.result()
                if index + 1 < len(batches):
                    upcoming = worker.submit(prepare, batches[index + 1])
                self._write_batch(space, batch, vectors, extractions, embed, counters)
                self._invalidate(space)
                # The clock moves with the turn indexes handed out by _plan; no re-read needed.
                clock = max(clock, *(p.turn_index + 1 for p in batch))
                self._clocks[space] = clock
                if on_progress is not None:
                    on_progress(len(batch))
                if forgetting.due(clock, last_run, every):
                    runs.append(self.forget(space=space))
                    last_run = clock
        return IngestReport(
            space=space,
            turns_read=len(turns),
            turns_written=len(todo),
            turns_skipped=len(plans) - len(todo),
            sessions=len({t.session for t in turns}),
            entities_created=counters["entities_created"],
            entities_merged=counters["entities_merged"],
            mentions=counters["mentions"],
            relations=counters["relations"],
            forget_runs=tuple(runs),
            extractor=extractor.name,
            seconds=round(time.perf_counter() - started, 3),
        )

    def _extractor(self) -> Extractor:
        llm = self.memory.llm
        offline = OfflineExtractor()
        if llm is None:
            return offline
        fallback = offline if self.memory.settings.llm_fallback == "offline" else None
        return LLMExtractor(llm, fallback=fallback)

    def _plan(
        self, turns: Sequence[TurnInput], space: str, existing: Mapping[str, Mapping[str, Any]]
    ) -> list[_TurnPlan]:
        """Sequence numbers, NEXT links and the logical clock for each turn, and whether it
        is already stored complete with this content (then it is skipped)."""
        sessions = list(dict.fromkeys(t.session for t in turns))
        tails: dict[str, tuple[str, int]] = {}
        for start in range(0, len(sessions), 500):
            for row in self.memory.store.read(
                "conversation/session_tails",
                {"space": space, "sessions": sessions[start : start + 500]},
            ):
                if row["last_id"] is not None:
                    tails[str(row["session"])] = (str(row["last_id"]), int(row["last_seq"]))
        clock = self.clock(space)
        last_in_session: dict[str, str] = {}
        max_seq: dict[str, int] = {s: tails[s][1] for s in tails}
        plans = []
        for turn in turns:
            stored = existing.get(turn.turn_id)
            digest = content_hash(
                turn.session,
                turn.speaker,
                turn.text,
                str(turn.timestamp),
                json.dumps(turn.metadata, sort_keys=True, default=str),
            )
            if stored is not None and stored.get("seq") is not None:
                seq = int(stored["seq"])
                turn_index = int(stored.get("created_turn") or 0)
            else:
                seq = max_seq.get(turn.session, -1) + 1
                turn_index = clock
                clock += 1
            max_seq[turn.session] = max(max_seq.get(turn.session, -1), seq)
            prev = last_in_session.get(turn.session)
            if prev is None and stored is None and turn.session in tails:
                tail_id = tails[turn.session][0]
                prev = tail_id if tail_id != turn.turn_id else None
            last_in_session[turn.session] = turn.turn_id
            skip = (
                stored is not None
                and bool(stored.get("complete"))
                and stored.get("content_hash") == digest
            )
            plans.append(_TurnPlan(turn, seq, prev, turn_index, digest, skip))
        return plans

    def _write_batch(
        self,
        space: str,
        batch: Sequence[_TurnPlan],
        vectors: Sequence[list[float]],
        extractions: Sequence[TurnExtraction],
        embed: Callable[[Sequence[str]], list[list[float]]],
        counters: dict[str, int],
    ) -> None:
        store = self.memory.store
        now = now_ms()
        size = self.config.batch_size

        # 1. sessions
        by_session: dict[str, list[TurnInput]] = defaultdict(list)
        for plan in batch:
            by_session[plan.turn.session].append(plan.turn)
        session_rows = []
        for sid, items in by_session.items():
            times = [t.timestamp for t in items if t.timestamp is not None]
            session_rows.append(
                {
                    "id": sid,
                    "speakers": list(dict.fromkeys(t.speaker for t in items)),
                    "first_time": min(times) if times else None,
                    "last_time": max(times) if times else None,
                }
            )
        store.write_batches(
            "conversation/upsert_sessions",
            session_rows,
            batch_size=size,
            params={"space": space, "now": now},
        )

        # 2. entities: exact title, then embedding similarity, then new
        resolved, entity_rows = self._resolve_entities(space, batch, extractions, embed, counters)
        store.write_batches(
            "conversation/upsert_entities",
            entity_rows,
            batch_size=size,
            params={"space": space, "now": now},
        )

        # 3. turns (MATCHing their session)
        turn_rows = [
            {
                "id": p.turn.turn_id,
                "session": p.turn.session,
                "seq": p.seq,
                "speaker": p.turn.speaker,
                "text": p.turn.text,
                "time": p.turn.timestamp,
                "n_terms": max(1, term_count(p.turn.text)),
                "metadata_json": json.dumps(p.turn.metadata, ensure_ascii=False, default=str),
                "content_hash": p.digest,
                "turn_index": p.turn_index,
                "embedding": vec,
            }
            for p, vec in zip(batch, vectors, strict=True)
        ]
        store.write_batches(
            "conversation/upsert_turns",
            turn_rows,
            batch_size=size,
            params={"space": space, "now": now},
        )

        # 4. edges
        mention_rows: dict[tuple[str, str], dict[str, Any]] = {}
        relation_rows: dict[str, dict[str, Any]] = {}
        for plan, extraction in zip(batch, extractions, strict=True):
            tid = plan.turn.turn_id
            for entity in extraction.entities:
                eid = resolved.get(name_key(entity.name))
                if eid is not None:
                    mention_rows.setdefault(
                        (tid, eid),
                        {
                            "turn": tid,
                            "entity": eid,
                            "surface": entity.name,
                            "turn_index": plan.turn_index,
                        },
                    )
            for rel in extraction.relations:
                source = resolved.get(name_key(rel.source))
                target = resolved.get(name_key(rel.target))
                if source is None or target is None or source == target:
                    continue
                rid = stable_id(space, tid, rel.type, source, target, prefix="r")
                relation_rows[rid] = {
                    "id": rid,
                    "source": source,
                    "target": target,
                    "type": rel.type,
                    "fact": rel.fact,
                    "turn": tid,
                    "session": plan.turn.session,
                    "time": plan.turn.timestamp,
                }
        params = {"space": space}
        store.write_batches(
            "conversation/link_mentions",
            list(mention_rows.values()),
            batch_size=size * 4,
            params=params,
        )
        store.write_batches(
            "conversation/link_relates",
            list(relation_rows.values()),
            batch_size=size * 4,
            params=params,
        )
        next_rows = [{"prev": p.prev, "id": p.turn.turn_id} for p in batch if p.prev]
        store.write_batches("conversation/link_next", next_rows, batch_size=size, params=params)

        # 5. recompute the session counters, then mark the turns complete: in this order a
        # crash between the two leaves the turns incomplete, so the re-run redoes both.
        store.write("conversation/refresh_sessions", {"space": space, "sessions": list(by_session)})
        store.write(
            "conversation/finish_turns", {"space": space, "ids": [p.turn.turn_id for p in batch]}
        )
        counters["mentions"] += len(mention_rows)
        counters["relations"] += len(relation_rows)

    def _resolve_entities(
        self,
        space: str,
        batch: Sequence[_TurnPlan],
        extractions: Sequence[TurnExtraction],
        embed: Callable[[Sequence[str]], list[list[float]]],
        counters: dict[str, int],
    ) -> tuple[dict[str, str], list[dict[str, Any]]]:
        """name key → entity id for every entity of the batch, and the rows to upsert."""
        cache = self._entity_cache.setdefault(space, {})
        first: dict[str, tuple[str, str, _TurnPlan]] = {}
        for plan, extraction in zip(batch, extractions, strict=True):
            for entity in extraction.entities:
                key = name_key(entity.name)
                if key and key not in first:
                    first[key] = (entity.name, entity.type, plan)
        unknown = [k for k in first if k not in cache]
        if unknown:
            for start in range(0, len(unknown), 1000):
                for row in self.memory.store.read(
                    "conversation/entities_by_key",
                    {"space": space, "keys": unknown[start : start + 1000]},
                ):
                    cache[str(row["key"])] = str(row["id"])
        rows: dict[str, dict[str, Any]] = {}

        def touch_row(eid: str, key: str) -> dict[str, Any]:
            name, kind, plan = first[key]
            row = rows.setdefault(
                eid,
                {
                    "id": eid,
                    "name": name,
                    "name_key": key,
                    "type": kind,
                    "embedding": None,
                    "aliases": [],
                    "turn_index": plan.turn_index,
                    "first_turn": plan.turn.turn_id,
                },
            )
            row["turn_index"] = max(row["turn_index"], plan.turn_index)
            return row

        fresh = [k for k in first if k not in cache]
        threshold = self.config.dedup_threshold
        if fresh:
            vectors = embed([first[k][0] for k in fresh])
            by_key = dict(zip(fresh, vectors, strict=True))
            matches: dict[str, str] = {}
            probes = [Probe(k, by_key[k]) for k in fresh]
            for start in range(0, len(probes), 500):
                closest = nearest(
                    self.memory.store,
                    "conversation/similar_entities",
                    probes[start : start + 500],
                    space=space,
                    k=1,
                    min_similarity=threshold,
                )
                for key, hits in closest.items():
                    if hits:
                        matches[key] = str(hits[0]["id"])
            for key, eid in matches.items():
                cache[key] = eid
                touch_row(eid, key)["aliases"].append(first[key][0])
                counters["entities_merged"] += 1
            remaining = [k for k in fresh if k not in matches]
            for cluster in cluster_new_names(remaining, [by_key[k] for k in remaining], threshold):
                eid = entity_id(cluster.key)
                row = touch_row(eid, cluster.key)
                row["embedding"] = by_key[cluster.key]
                counters["entities_created"] += 1
                for member in cluster.members:
                    cache[member] = eid
                    if member != cluster.key:
                        row["aliases"].append(first[member][0])
                        counters["entities_merged"] += 1
        for key in first:
            eid = cache[key]
            if eid not in rows:
                touch_row(eid, key)
        resolved = {key: cache[key] for key in first}
        # An existing entity row must not overwrite its stored name or embedding: the upsert
        # sets those only ON CREATE. Rows of new entities always carry their embedding.
        return resolved, list(rows.values())

    # --- space facts -----------------------------------------------------------------------
    def space_stats(self, space: str) -> SpaceStats:
        if space not in self._stats:
            rows = self.memory.store.read("conversation/space_stats", {"space": space})
            row = rows[0] if rows else {}
            self._stats[space] = SpaceStats(
                sessions=int(row.get("sessions") or 0),
                turns=int(row.get("turns") or 0),
                terms=int(row.get("terms") or 0),
            )
        return self._stats[space]

    def speakers(self, space: str) -> frozenset[str]:
        if space not in self._speakers:
            rows = self.memory.store.read("conversation/space_speakers", {"space": space})
            self._speakers[space] = frozenset(str(r["speaker"]) for r in rows)
        return self._speakers[space]

    def _entity_count(self, space: str) -> int:
        if space not in self._entity_counts:
            rows = self.memory.store.read("conversation/entity_count", {"space": space})
            self._entity_counts[space] = int(rows[0]["entities"]) if rows else 0
        return self._entity_counts[space]

    def clock(self, space: str) -> int:
        """Turns ever ingested into the space: the time axis of forgetting (turn age)."""
        if space not in self._clocks:
            rows = self.memory.store.read("conversation/space_clock", {"space": space})
            row = rows[0] if rows else {}
            last_turn = row.get("last_turn")
            last_run = row.get("last_run")
            self._clocks[space] = max(
                int(last_turn) + 1 if last_turn is not None else 0,
                int(last_run) if last_run is not None else 0,
            )
        return self._clocks[space]

    def _invalidate(self, space: str) -> None:
        self._clocks.pop(space, None)
        self._stats.pop(space, None)
        self._speakers.pop(space, None)
        self._entity_counts.pop(space, None)

    def _last_forget_at(self, space: str) -> int | None:
        rows = self.memory.store.read("conversation/last_forget_run", {"space": space})
        value = rows[0]["at_turn"] if rows else None
        return int(value) if value is not None else None

    # --- retrieval -------------------------------------------------------------------------
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
        vector, fulltext. Returned turns (and sf entities) count as accessed."""
        if not isinstance(query, str) or not query.strip():
            raise InputError("the query must not be empty", field="query")
        if len(query) > MAX_QUERY:
            raise InputError(f"the query is longer than {MAX_QUERY} characters", field="query")
        if mode not in SEARCH_MODES:
            raise InputError(f"unknown mode {mode!r}: use {', '.join(SEARCH_MODES)}", field="mode")
        if not 1 <= k <= 1000:
            raise InputError("k must be between 1 and 1000", field="k")
        self.memory.require_space(space)
        self.memory.ensure_embedder_matches()
        query = query.strip()
        nodes: tuple[SubgraphNode, ...] = ()
        edges: tuple[SubgraphEdge, ...] = ()
        if mode == "vector":
            hits = single_source(self._dense(query, space, k), "vector", k)
        elif mode == "fulltext":
            hits = single_source(self._lexical(query, space, k), "fulltext", k)
        elif mode == "sf":
            hits, nodes, edges = self._sf(query, space, k)
        else:
            hits = self._hybrid(query, space, k)
        if touch and hits:
            self._touch(space, [h.turn_id for h in hits], [n.id for n in nodes])
        return SearchResult(query, space, mode, tuple(hits), nodes, edges)

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
        """Stop the search helper threads (idle threads also end with the interpreter)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None

    def _executor(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="graphmem-search")
        return self._pool

    def _embed_query(self, query: str) -> list[float]:
        return self.memory.embedder.embed([query])[0]

    def _dense(
        self, query: str, space: str, limit: int, embedding: list[float] | None = None
    ) -> list[tuple[Candidate, float]]:
        vector = embedding if embedding is not None else self._embed_query(query)
        rows = nearest_one(
            self.memory.store,
            "conversation/search_vector",
            vector,
            space=space,
            k=limit,
            exact=self.space_stats(space).turns <= self.config.exact_scan_turns,
        )
        return [(Candidate.from_row(r), float(r["similarity"])) for r in rows]

    def _lexical(self, query: str, space: str, limit: int) -> list[tuple[Candidate, float]]:
        terms = content_terms(query, exclude=speaker_words(self.speakers(space)))
        if not terms:
            terms = content_terms(query)
        if not terms:
            return []
        stats = self.space_stats(space)
        w = self.config.weights
        rows = self.memory.store.read(
            "conversation/search_fulltext",
            {
                "space": space,
                "terms": terms,
                "turns": max(1, stats.turns),
                "avg_terms": max(1.0, stats.avg_terms),
                "k1": w.bm25_k1,
                "b": w.bm25_b,
                "candidates": limit,
            },
        )
        return [(Candidate.from_row(r), float(r["score"])) for r in rows]

    def _graph(self, query: str, space: str, limit: int) -> list[tuple[Candidate, float]]:
        speakers = self.speakers(space)
        extraction = OfflineExtractor().extract_one(
            TurnInput(session="", turn_id="query", speaker="", text=query), speakers
        )
        names = [e.name for e in extraction.entities if e.type != "date"]
        keys = query_entity_keys(query, names, content_terms(query), speakers)
        if not keys:
            return []
        turns = self.space_stats(space).turns
        rows = self.memory.store.read(
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

    def _hybrid(self, query: str, space: str, k: int) -> list[SearchHit]:
        pool = max(self.config.candidates, k)
        named = named_speakers(query, self.speakers(space))
        self.space_stats(space)  # cached before the threads read it
        # The lexical and graph sources need no embedding: they run while the query is
        # embedded and the vector source is searched.
        lexical = self._executor().submit(self._lexical, query, space, pool)
        graph = self._executor().submit(self._graph, query, space, pool)
        dense = self._dense(query, space, pool)
        return fuse(
            lexical=lexical.result(),
            dense=dense,
            graph=graph.result(),
            weights=self.config.weights,
            speakers=named,
            ranges=time_ranges(query),
            k=k,
        )

    def _sf(
        self, query: str, space: str, k: int
    ) -> tuple[list[SearchHit], tuple[SubgraphNode, ...], tuple[SubgraphEdge, ...]]:
        """The paper's retrieval: embed the entities the query refers to, take the top roots
        over the entity index (cosine ≥ 0.75), expand two hops (cap 15 nodes), and return the
        subgraph and its source turns (ranked by the similarity of the roots they reach)."""
        cfg = self.config
        speakers = self.speakers(space)
        extraction = OfflineExtractor().extract_one(
            TurnInput(session="", turn_id="query", speaker="", text=query), speakers
        )
        names = [e.name for e in extraction.entities if e.type != "date"] or [query]
        embeddings = self.memory.embedder.embed(names)
        per_name = nearest(
            self.memory.store,
            "conversation/sf_roots",
            [Probe(str(i), e) for i, e in enumerate(embeddings)],
            space=space,
            k=cfg.sf_roots,
            min_similarity=cfg.sf_min_similarity,
            exact=self._entity_count(space) <= cfg.exact_scan_turns * 2,
        )
        best_of: dict[str, float] = {}
        for name_hits in per_name.values():
            for hit in name_hits:
                eid = str(hit["id"])
                best_of[eid] = max(best_of.get(eid, -1.0), float(hit["similarity"]))
        top = sorted(best_of.items(), key=lambda item: (-item[1], item[0]))[: cfg.sf_roots]
        if not top:
            return [], (), ()
        root_sim = dict(top)
        reached = self.memory.store.read(
            "conversation/sf_expand",
            {"space": space, "roots": list(root_sim), "fanout": cfg.sf_node_cap},
        )
        chosen: dict[str, Mapping[str, Any]] = {}
        for row in sorted(
            reached, key=lambda r: (int(r["hop"]), -float(root_sim.get(str(r["id"]), 0)))
        ):
            if len(chosen) >= cfg.sf_node_cap:
                break
            if int(row["hop"]) <= cfg.sf_hops:
                chosen.setdefault(str(row["id"]), row)
        best = max(root_sim.values())
        weight = {
            eid: root_sim.get(eid, best) * (0.5 ** int(row["hop"])) for eid, row in chosen.items()
        }
        nodes = tuple(
            SubgraphNode(
                id=eid,
                name=str(row["name"]),
                type=str(row["type"]),
                hop=int(row["hop"]),
                similarity=root_sim.get(eid),
            )
            for eid, row in chosen.items()
        )
        edge_rows = self.memory.store.read(
            "conversation/sf_edges", {"space": space, "ids": list(chosen), "limit": 100}
        )
        edges = tuple(
            SubgraphEdge(
                source=str(r["source"]),
                target=str(r["target"]),
                type=str(r["type"]),
                fact=str(r["fact"]),
                turn_id=str(r["turn_id"]) if r["turn_id"] is not None else None,
            )
            for r in edge_rows
        )
        scores: dict[str, float] = defaultdict(float)
        candidates: dict[str, Candidate] = {}
        for row in self.memory.store.read(
            "conversation/sf_turns", {"space": space, "ids": list(chosen), "per_entity": 50}
        ):
            c = Candidate.from_row(row)
            candidates[c.id] = c
            scores[c.id] += sum(weight.get(str(e), 0.0) for e in row["entities"])
        # A turn that states an edge of the subgraph is its direct source.
        fact_turns = {e.turn_id for e in edges if e.turn_id}
        for tid in fact_turns:
            scores[tid] += 0.5 * best
        missing = [t for t in fact_turns if t not in candidates]
        if missing:
            for row in self.memory.store.read(
                "conversation/get_turns", {"space": space, "ids": missing}
            ):
                c = Candidate.from_row(row)
                candidates[c.id] = c
        ranked = sorted(
            (tid for tid in scores if tid in candidates), key=lambda t: (-scores[t], t)
        )[:k]
        hits = [
            SearchHit(
                turn_id=tid,
                session=candidates[tid].session,
                speaker=candidates[tid].speaker,
                text=candidates[tid].text,
                score=scores[tid],
                via=("sf",),
                time=candidates[tid].time,
                seq=candidates[tid].seq,
            )
            for tid in ranked
        ]
        return hits, nodes, edges

    def touch(self, turn_ids: Sequence[str], *, space: str) -> None:
        """Count turns as accessed, as a search does for what it returns (recall calls this
        for the turns it put in a context)."""
        if turn_ids:
            self._touch(space, list(turn_ids), [])

    def _touch(self, space: str, turn_ids: list[str], entity_ids: list[str]) -> None:
        params = {"space": space, "now": now_ms(), "clock": self.clock(space)}
        self.memory.store.write("conversation/touch_turns", {**params, "ids": turn_ids})
        if entity_ids:
            self.memory.store.write("conversation/touch_entities", {**params, "ids": entity_ids})

    # --- forgetting ------------------------------------------------------------------------
    def forget(
        self,
        *,
        space: str,
        dry_run: bool = False,
        config: ForgettingConfig | None = None,
        archive: bool | None = None,
    ) -> ForgetReport:
        """Score every Turn and Entity and prune those below the threshold, with their
        incident edges. With `archive` (default) each pruned node is kept as a (:Forgotten)
        record that `restore` brings back. `dry_run` reports without changing anything."""
        cfg = config or self.config.forgetting
        if archive is not None:
            cfg = replace(cfg, archive=archive)
        self.memory.require_space(space)
        store = self.memory.store
        clock = self.clock(space)
        stats: list[forgetting.NodeStats] = []
        for query, label in (
            ("conversation/forget_turn_stats", "Turn"),
            ("conversation/forget_entity_stats", "Entity"),
        ):
            for row in store.read(query, {"space": space}):
                stats.append(
                    forgetting.NodeStats(
                        id=str(row["id"]),
                        label=label,
                        created_turn=int(row["created_turn"]),
                        last_turn=int(row["last_turn"]),
                        access_count=int(row["access_count"]),
                        degree=int(row["degree"]),
                    )
                )
        chosen = forgetting.select(stats, clock, cfg)
        run_id = f"{now_ms()}-{secrets.token_hex(3)}"
        dumps: list[tuple[str, float, dict[str, Any]]] = []
        for label, query in (
            ("Turn", "conversation/dump_turns"),
            ("Entity", "conversation/dump_entities"),
        ):
            ids = [n.id for n, _ in chosen if n.label == label]
            score = {n.id: s for n, s in chosen if n.label == label}
            for start in range(0, len(ids), 500):
                for row in store.read(query, {"space": space, "ids": ids[start : start + 500]}):
                    dumps.append((label, score[str(row["id"])], row))
        edges: set[tuple[str, str, str, str]] = set()
        size = 0
        by_label: dict[str, int] = defaultdict(int)
        for label, _, row in dumps:
            by_label[label] += 1
            size += _node_bytes(row["props"])
            for edge in row["edges"]:
                if edge is None:
                    continue
                ends = (
                    (row["id"], edge["other"]) if edge["outgoing"] else (edge["other"], row["id"])
                )
                key = (
                    edge["type"],
                    str(ends[0]),
                    str(ends[1]),
                    str((edge["props"] or {}).get("id", "")),
                )
                if key not in edges:
                    edges.add(key)
                    size += _edge_bytes(edge["props"] or {})
        report = ForgetReport(
            space=space,
            run_id=run_id,
            dry_run=dry_run,
            archived=cfg.archive and not dry_run,
            candidates=len(stats),
            nodes_removed=len(dumps),
            edges_removed=len(edges),
            bytes_removed=size,
            removed_by_label=dict(by_label),
            threshold=cfg.threshold,
        )
        if dry_run:
            return report
        now = now_ms()
        if cfg.archive and dumps:
            rows = [
                {
                    "id": f"{label}:{row['id']}",
                    "label": label,
                    "node_id": row["id"],
                    "summary": _summary(label, row["props"]),
                    "importance": score,
                    "payload_json": json.dumps(
                        {"props": _strip(row["props"]), "edges": [e for e in row["edges"] if e]},
                        ensure_ascii=False,
                        default=str,
                    ),
                }
                for label, score, row in dumps
            ]
            store.write_batches(
                "conversation/archive_nodes",
                rows,
                batch_size=200,
                params={"space": space, "run_id": run_id, "now": now},
            )
        sessions = {str(row["props"].get("session")) for label, _, row in dumps if label == "Turn"}
        neighbours = {
            str(e["other"])
            for label, _, row in dumps
            if label == "Turn"
            for e in row["edges"]
            if e and e["type"] == "MENTIONS"
        }
        for label, query in (
            ("Turn", "conversation/delete_turns"),
            ("Entity", "conversation/delete_entities"),
        ):
            ids = [str(row["id"]) for lab, _, row in dumps if lab == label]
            for start in range(0, len(ids), 500):
                store.write(query, {"space": space, "ids": ids[start : start + 500]})
        self._after_change(space, sessions, neighbours)
        store.write(
            "conversation/record_forget_run",
            {
                "space": space,
                "run_id": run_id,
                "at_turn": clock,
                "now": now,
                "nodes_removed": report.nodes_removed,
                "edges_removed": report.edges_removed,
                "bytes_removed": report.bytes_removed,
                "threshold": cfg.threshold,
                "archived": report.archived,
            },
        )
        return report

    def _after_change(self, space: str, sessions: Iterable[str], entities: Iterable[str]) -> None:
        store = self.memory.store
        session_list = sorted(s for s in sessions if s and s != "None")
        if session_list:
            store.write("conversation/refresh_sessions", {"space": space, "sessions": session_list})
        entity_list = sorted(entities)
        for start in range(0, len(entity_list), 1000):
            store.write(
                "conversation/refresh_entities",
                {"space": space, "ids": entity_list[start : start + 1000]},
            )
        self._invalidate(space)
        self._entity_cache.pop(space, None)

    def restore(self, *, space: str, run_id: str | None = None) -> RestoreReport:
        """Bring archived nodes back (all, or one run's) with the edges whose other end still
        exists; the archive records are removed afterwards."""
        self.memory.require_space(space)
        store = self.memory.store
        records = store.read("conversation/list_forgotten", {"space": space, "run_id": run_id})
        if not records:
            what = f"run {run_id!r}" if run_id else "anything"
            raise NotFound(f"space {space!r} has no archived nodes from {what}")
        node_rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
        edge_rows: dict[str, dict[tuple[str, str, str], dict[str, Any]]] = defaultdict(dict)
        sessions: set[str] = set()
        entities: set[str] = set()
        for record in records:
            payload = json.loads(record["payload_json"])
            props = dict(payload["props"])
            embedding = props.pop("embedding", None)
            label = str(record["label"])
            node_id = str(record["node_id"])
            props.pop("id", None)
            node_rows[label].append({"id": node_id, "props": props, "embedding": embedding})
            if label == "Turn" and props.get("session"):
                sessions.add(str(props["session"]))
            if label == "Entity":
                entities.add(node_id)
            for edge in payload["edges"]:
                source, target = (
                    (node_id, edge["other"]) if edge["outgoing"] else (edge["other"], node_id)
                )
                edge_props = dict(edge["props"] or {})
                key = (str(source), str(target), str(edge_props.get("id", "")))
                edge_rows[str(edge["type"])][key] = {
                    "source": source,
                    "target": target,
                    "props": edge_props,
                }
                if edge["type"] == "MENTIONS":
                    entities.add(str(target))
        labels = known_labels()
        rels = known_relationships()
        nodes_restored = 0
        for label, rows in node_rows.items():
            store.write_batches(
                labels[label].import_query, rows, batch_size=200, params={"space": space}
            )
            nodes_restored += len(rows)
        edges_restored = 0
        for rel_type, keyed in edge_rows.items():
            for start in range(0, len(keyed), 500):
                chunk = list(keyed.values())[start : start + 500]
                written = store.write(rels[rel_type].import_query, {"space": space, "rows": chunk})
                edges_restored += int(written[0]["written"]) if written else 0
        ids = [str(r["id"]) for r in records]
        for start in range(0, len(ids), 500):
            store.write(
                "conversation/delete_forgotten", {"space": space, "ids": ids[start : start + 500]}
            )
        self._after_change(space, sessions, entities)
        return RestoreReport(
            space=space,
            nodes_restored=nodes_restored,
            edges_restored=edges_restored,
            runs=tuple(sorted({str(r["run_id"]) for r in records})),
        )


@dataclass(frozen=True)
class _TurnPlan:
    turn: TurnInput
    seq: int
    prev: str | None
    turn_index: int
    digest: str
    skip: bool


def _check_unique(turns: Sequence[TurnInput]) -> None:
    seen: dict[str, TurnInput] = {}
    for turn in turns:
        if turn.turn_id in seen:
            raise InputError(
                f"duplicate turn_id {turn.turn_id!r}",
                source=turn.source,
                line=turn.line,
                field="turn_id",
            )
        seen[turn.turn_id] = turn
        for name in ("session", "turn_id", "speaker", "text"):
            value = getattr(turn, name)
            if not isinstance(value, str) or not value.strip():
                raise InputError(
                    "must be a non-empty string", source=turn.source, line=turn.line, field=name
                )


def _strip(props: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if k != "space"}


def _node_bytes(props: Mapping[str, Any]) -> int:
    """Stored size estimate: JSON of the properties, 4 bytes per float32 vector component."""
    embedding = props.get("embedding")
    rest = {k: v for k, v in props.items() if k != "embedding"}
    vector = 4 * len(embedding) if isinstance(embedding, list) else 0
    return len(json.dumps(rest, ensure_ascii=False, default=str).encode("utf-8")) + vector


def _edge_bytes(props: Mapping[str, Any]) -> int:
    # 16: type and the two endpoint references.
    return 16 + len(json.dumps(dict(props), ensure_ascii=False, default=str).encode("utf-8"))


def _summary(label: str, props: Mapping[str, Any]) -> str:
    if label == "Turn":
        text = str(props.get("text", ""))
        return f"{props.get('speaker', '')}: {text[:120]}"
    return f"{props.get('name', '')} ({props.get('type', '')})"
