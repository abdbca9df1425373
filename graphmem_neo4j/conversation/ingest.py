"""Ingestion: turns in, the conversation graph out.

Per batch, each step one idempotent UNWIND statement, in an order that keeps the graph
consistent if the process dies between any two of them:

    sessions → entities → turns (+ HAS_TURN, complete=false) → MENTIONS, RELATES, NEXT
    → session counters recomputed → turns complete=true

A re-run skips turns stored complete with the same content and redoes the rest.
"""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..fulltext import stem_keys
from ..schema import now_ms
from . import forgetting
from .coref import inherit_referents
from .deps import Parts
from .entities import Embed, resolve_entities
from .extract import Extractor, OfflineExtractor
from .extract_llm import LLMExtractor
from .models import ConversationConfig, ForgetReport, IngestReport, TurnExtraction, TurnInput
from .plan import TurnPlan, check_unique, plan_turns, stored_turns
from .readers import InputFormat, read_turns
from .state import SpaceState
from .text import name_key, stable_id, term_count

Progress = Callable[[int], None]
Forget = Callable[[str], ForgetReport]


def embedding_text(speaker: str, text: str, previous: tuple[str, str] | None = None) -> str:
    """What a turn's embedding is computed from: who said it, what, and then the turn before it
    in its session (`previous`: its speaker and text), which a reply's meaning often depends on.
    The turn comes first so that a model's length limit cuts the context, not the turn
    (docs/conversation.md, "What a turn's vector holds")."""
    own = f"{speaker}: {text}"
    return own if previous is None else f"{own}\n{previous[0]}: {previous[1]}"


class Ingestor:
    def __init__(
        self,
        parts: Parts,
        config: ConversationConfig,
        state: SpaceState,
        *,
        forget: Forget,
        default_space: str,
        llm_fallback: bool,
    ) -> None:
        self.parts = parts
        self.config = config
        self.state = state
        self.forget = forget
        self.default_space = default_space
        self.llm_fallback = llm_fallback
        """With an LLM: fall back to the rules when it keeps failing (else the error stands)."""

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
        return [
            self.add_turns(
                turns,
                space=target or self.default_space,
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
        check_unique(turns)
        parts = self.parts
        parts.ensure_space(space)
        parts.ensure_embedder_matches()
        started = time.perf_counter()  # model load and schema set-up are not ingestion
        extractor = self._extractor(space)
        every = self.config.forgetting.every if forget_every is None else forget_every

        facts = self.state.facts(space)  # read once per call, never kept between calls
        existing = stored_turns(parts.store, space, [t.turn_id for t in turns])
        plans = plan_turns(parts.store, turns, space, existing, facts.clock)
        todo = [p for p in plans if not p.skip]
        if on_progress is not None and len(plans) > len(todo):
            on_progress(len(plans) - len(todo))
        counters: defaultdict[str, int] = defaultdict(int)
        runs: list[ForgetReport] = []
        last_run = self.state.last_forget_at(space) if every > 0 else None
        speakers = frozenset(facts.speakers | {t.speaker for t in turns})
        lock = threading.Lock()

        def embed(texts: Sequence[str]) -> list[list[float]]:
            with lock:  # one model call at a time; tokenizers are not re-entrant
                return parts.embedder.embed(texts)

        # Entity names are embedded with their batch's turns, ahead of the batch's write: had
        # the write embed them, it would wait for the model while the model works on the next
        # batch, and the two would take turns instead of overlapping. Names of entities that
        # turn out to be stored already are embedded for nothing (once per call); a name is
        # a few word pieces against a turn's thirty.
        name_vectors: dict[str, list[float]] = {}

        def embed_names(names: Sequence[str]) -> list[list[float]]:
            missing = [n for n in dict.fromkeys(names) if n not in name_vectors]
            if missing:
                name_vectors.update(zip(missing, embed(missing), strict=True))
            return [name_vectors[n] for n in names]

        def prepare(batch: Sequence[TurnPlan]) -> tuple[list[list[float]], list[TurnExtraction]]:
            texts = [embedding_text(p.turn.speaker, p.turn.text, p.previous) for p in batch]
            turns = [p.turn for p in batch]
            extractions = extractor.extract(turns, speakers)
            if self.config.coreference:
                extractions = inherit_referents(turns, extractions)
            found = (e.name for x in extractions for e in x.entities)
            names = [n for n in dict.fromkeys(found) if n not in name_vectors]
            vectors = embed([*texts, *names])
            name_vectors.update(zip(names, vectors[len(texts) :], strict=True))
            return vectors[: len(texts)], extractions

        # Batch i+1 is embedded and extracted while batch i is written: the model and the
        # engine work at the same time.
        size = self.config.batch_size
        batches = [todo[i : i + size] for i in range(0, len(todo), size)]
        clock = facts.clock
        # Entities are written at every mention: on FalkorDB each write leaves an orphaned
        # vector in their index, and an index answering short sends a batch's
        # de-duplication lookups to exact scans of the space (store/falkordb_vectors.py), so
        # any orphan is mended before each batch and after the last. Other stores have
        # nothing to repair.
        repair = getattr(parts.store, "repair_vector_indexes", None)
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphmem-ingest") as worker:
            upcoming = worker.submit(prepare, batches[0]) if batches else None
            for index, batch in enumerate(batches):
                assert upcoming is not None
                vectors, extractions = upcoming.result()
                if index + 1 < len(batches):
                    upcoming = worker.submit(prepare, batches[index + 1])
                if repair is not None:
                    repair(healthy=1.0)
                self._write_batch(space, batch, vectors, extractions, embed_names, counters)
                # The clock moves with the turn indexes handed out by plan_turns.
                clock = max(clock, *(p.turn_index + 1 for p in batch))
                if on_progress is not None:
                    on_progress(len(batch))
                if forgetting.due(clock, last_run, every):
                    runs.append(self.forget(space))
                    last_run = clock
        if batches and repair is not None:
            repair(healthy=1.0)
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

    def _extractor(self, space: str) -> Extractor:
        llm = self.parts.llm_for(space)
        offline = OfflineExtractor(activities=self.config.activities)
        if llm is None:
            return offline
        return LLMExtractor(llm, fallback=offline if self.llm_fallback else None)

    def _write_batch(
        self,
        space: str,
        batch: Sequence[TurnPlan],
        vectors: Sequence[list[float]],
        extractions: Sequence[TurnExtraction],
        embed: Embed,
        counters: defaultdict[str, int],
    ) -> None:
        store = self.parts.store
        now = now_ms()
        size = self.config.batch_size

        # 1. sessions
        by_session: dict[str, list[TurnPlan]] = defaultdict(list)
        for plan in batch:
            by_session[plan.turn.session].append(plan)
        store.write_batches(
            "conversation/upsert_sessions",
            _session_rows(by_session),
            batch_size=size,
            params={"space": space, "now": now},
        )

        # 2. entities: exact title, then embedding similarity, then new
        resolved, entity_rows = resolve_entities(
            store,
            space,
            batch,
            extractions,
            embed,
            counters,
            threshold=self.config.dedup_threshold,
        )
        store.write_batches(
            "conversation/upsert_entities",
            entity_rows,
            batch_size=size,
            params={"space": space, "now": now},
        )

        # 3. turns (MATCHing their session)
        store.write_batches(
            "conversation/upsert_turns",
            _turn_rows(batch, vectors),
            batch_size=size,
            params={"space": space, "now": now},
        )

        # 4. edges
        mention_rows, relation_rows = _edge_rows(space, batch, extractions, resolved)
        params = {"space": space}
        store.write_batches(
            "conversation/link_mentions", mention_rows, batch_size=size * 4, params=params
        )
        store.write_batches(
            "conversation/link_relates", relation_rows, batch_size=size * 4, params=params
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


def _session_rows(by_session: dict[str, list[TurnPlan]]) -> list[dict[str, Any]]:
    rows = []
    for sid, plans in by_session.items():
        times = [p.turn.timestamp for p in plans if p.turn.timestamp is not None]
        rows.append(
            {
                "id": sid,
                "speakers": list(dict.fromkeys(p.turn.speaker for p in plans)),
                "first_time": min(times) if times else None,
                "last_time": max(times) if times else None,
            }
        )
    return rows


def _turn_rows(batch: Sequence[TurnPlan], vectors: Sequence[list[float]]) -> list[dict[str, Any]]:
    return [
        {
            "id": p.turn.turn_id,
            "session": p.turn.session,
            "seq": p.seq,
            "speaker": p.turn.speaker,
            "text": p.turn.text,
            "time": p.turn.timestamp,
            "n_terms": max(1, term_count(p.turn.text)),
            "stems": stem_keys(p.turn.text),
            "metadata_json": json.dumps(p.turn.metadata, ensure_ascii=False, default=str),
            "content_hash": p.digest,
            "turn_index": p.turn_index,
            "embedding": vec,
        }
        for p, vec in zip(batch, vectors, strict=True)
    ]


def _edge_rows(
    space: str,
    batch: Sequence[TurnPlan],
    extractions: Sequence[TurnExtraction],
    resolved: dict[str, str],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """MENTIONS rows (one per turn and entity) and RELATES rows (stable ids: re-runs merge)."""
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
    return list(mention_rows.values()), list(relation_rows.values())
