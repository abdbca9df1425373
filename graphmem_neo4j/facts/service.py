"""The facts layer's service: the only code that writes its part of the graph.

An update runs HiGram's loop (§3.2-3.3): the fact becomes a temporary unit, localisation finds
the MicroGraphs and the evidence path it touches, the new unit is written (still `pending`),
the slot's versions and the dependents of every unit whose status changes are decided in
rewrite.py, and one statement (`facts/apply_statuses`) flips every status at once. Every step
is idempotent, so a run interrupted anywhere is completed by running it again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError, LLMError
from ..schema import now_ms
from ..store.base import GraphStore
from .config import FactConfig
from .keys import terms
from .llm_extract import extract_with_llm
from .localise import Localiser
from .models import (
    AskResult,
    DependencyChain,
    Fact,
    FactHit,
    FactInput,
    FactOutcome,
    FactQuery,
    HistoryEntry,
    IngestReport,
    Localisation,
    MemoryUnit,
    TempUnit,
    UnitStatus,
    UpdatePolicy,
)
from .parsing import normalise_all, parse_fact, read_facts_file
from .patterns import parse_statements
from .reader import FactReader
from .rewrite import (
    StatusChange,
    StoredUnit,
    SupporterRef,
    plan_dependents,
    plan_relation_level,
    plan_slot,
)

if TYPE_CHECKING:
    from ..memory import GraphMemory

Progress = Callable[[int], None]
Slot = tuple[str, str, str | None]


def _stored(row: Mapping[str, Any]) -> StoredUnit:
    return StoredUnit(
        unit=MemoryUnit.from_row(row["unit"]),
        supporters=tuple(SupporterRef.from_row(s) for s in row.get("supporters") or []),
        superseded_by=tuple(str(x) for x in row.get("superseded_by") or []),
        contests=tuple(str(x) for x in row.get("contests") or []),
    )


class FactService:
    def __init__(self, memory: GraphMemory, config: FactConfig | None = None) -> None:
        self.memory = memory
        self.config = config or FactConfig()
        self.reader = FactReader(memory, self.config)
        self._clock_lock = threading.Lock()
        self._last_time = 0

    # --- plumbing ----------------------------------------------------------------------------
    @property
    def _store(self) -> GraphStore:
        return self.memory.store

    @property
    def localiser(self) -> Localiser:
        return Localiser(self.memory.store, self.config.localise)

    def _space(self, space: str | None) -> str:
        return space if space is not None else self.memory.settings.space

    def _times(self, count: int) -> int:
        """A base time for a batch: facts without valid_from get base, base+1, ... so they are
        ordered by arrival even within one millisecond."""
        with self._clock_lock:
            base = max(now_ms(), self._last_time + 1)
            self._last_time = base + max(count, 1)
            return base

    # --- ingestion ---------------------------------------------------------------------------
    def add_file(
        self, path: Path, *, space: str | None = None, on_progress: Progress | None = None
    ) -> IngestReport:
        """`graphmem facts add FILE`: every line is checked before anything is stored."""
        items = read_facts_file(path)
        return self.add_facts(
            [item for _, item in items],
            space=space,
            lines=[line for line, _ in items],
            source_name=str(path),
            on_progress=on_progress,
        )

    def add_facts(
        self,
        facts: Iterable[FactInput | Mapping[str, Any]],
        *,
        space: str | None = None,
        lines: Sequence[int] | None = None,
        source_name: str | None = None,
        on_progress: Progress | None = None,
    ) -> IngestReport:
        """Add structured facts in order; returns what each did. Idempotent: the same facts
        added again change nothing. Errors name `source_name` (default "input") and the
        item's line (default: its 1-based position)."""
        space = self._space(space)
        source_name = source_name or "input"
        items = list(facts)
        numbers: list[int | None] = (
            list(lines) if lines is not None else list(range(1, len(items) + 1))
        )
        parsed = [
            (numbers[i], parse_fact(item, source=source_name, line=numbers[i]))
            for i, item in enumerate(items)
        ]
        if not parsed:
            raise InputError("no facts given", source=source_name)
        missing_times = sum(1 for _, f in parsed if f.valid_from is None)
        batch = normalise_all(
            parsed,
            now=self._times(missing_times),
            default_confidence=self.config.default_confidence,
            source_name=source_name,
        )
        self.memory.ensure_space(space)
        existing = self._check_ids(space, batch, source_name)
        self._check_dependencies(space, batch, source_name)
        vectors = self._embed(batch)
        outcomes = self._ingest(space, batch, existing, vectors, on_progress)
        return IngestReport(space, tuple(outcomes))

    def add_text(
        self,
        text: str,
        *,
        space: str | None = None,
        source: str | None = None,
        use_llm: bool | None = None,
    ) -> IngestReport:
        """Facts from free text: the LLM builds temporary units when one is configured (and
        `use_llm` is not False); otherwise, or when it fails and GRAPHMEM_LLM_FALLBACK=offline,
        the offline statement patterns do."""
        if not isinstance(text, str) or not text.strip():
            raise InputError("empty text", field="text")
        facts: list[FactInput] = []
        llm = self.memory.llm if use_llm is not False else None
        if use_llm and llm is None:
            raise InputError("no LLM is configured (GRAPHMEM_LLM=openai)", field="llm")
        if llm is not None:
            try:
                facts, _ = extract_with_llm(llm, text, source=source)
            except LLMError:
                if self.memory.settings.llm_fallback != "offline":
                    raise
                facts = []
        if not facts:
            facts = self._offline_facts(text, source)
        if not facts:
            raise InputError(
                "found no fact in the text: the offline patterns read simple statements such "
                "as 'Alice lives in Paris' or \"Bob's employer is Acme since 2021\"; use "
                "structured JSONL (graphmem facts add) or configure an LLM",
                field="text",
            )
        return self.add_facts(facts, space=space, source_name="text")

    @staticmethod
    def _offline_facts(text: str, source: str | None) -> list[FactInput]:
        found = []
        for st in parse_statements(text):
            data: dict[str, Any] = {
                "subject": st.subject,
                "relation": st.relation,
                "object": st.object,
                "category": st.category,
            }
            if st.context:
                data["context"] = st.context
            if st.valid_from:
                data["valid_from"] = st.valid_from
            if source:
                data["source"] = source
            try:
                found.append(FactInput.model_validate(data))
            except ValueError:
                continue
        return found

    def _check_ids(
        self, space: str, batch: Sequence[Fact], source_name: str | None
    ) -> dict[str, MemoryUnit]:
        """Units that already exist under the batch's ids; an id naming a different fact is
        an input error."""
        found = self.reader.units_by_ids(space, [f.id for f in batch])
        for fact in batch:
            unit = found.get(fact.id)
            if unit is None:
                continue
            stored = (
                unit.subject_key,
                unit.relation_key,
                unit.object_key,
                unit.category_key,
                unit.context_key,
            )
            if stored != fact.fingerprint():
                raise InputError(
                    f"id {fact.id!r} already stores another fact ({unit.text!r})",
                    source=source_name,
                    line=fact.line,
                    field="id",
                )
        return found

    def _check_dependencies(
        self, space: str, batch: Sequence[Fact], source_name: str | None
    ) -> None:
        """depends_on must name units stored already or given on an earlier line."""
        earlier: set[str] = set()
        wanted = {d for f in batch for d in f.depends_on}
        stored = set(self.reader.units_by_ids(space, sorted(wanted))) if wanted else set()
        for fact in batch:
            for dep in fact.depends_on:
                if dep not in earlier and dep not in stored:
                    raise InputError(
                        f"unknown unit id {dep!r} (it must be stored already or come earlier)",
                        source=source_name,
                        line=fact.line,
                        field="depends_on",
                    )
            earlier.add(fact.id)

    def _embed(self, batch: Sequence[Fact]) -> dict[str, list[float]]:
        """One embedding call for every unit text and every subject and category name."""
        texts = list(
            dict.fromkeys(
                [f.text for f in batch] + [f.subject for f in batch] + [f.category for f in batch]
            )
        )
        vectors = self.memory.embedder.embed(texts)
        return dict(zip(texts, vectors, strict=True))

    def _unit_row(
        self, fact: Fact, status: UnitStatus, vectors: Mapping[str, list[float]]
    ) -> dict[str, Any]:
        props = {
            "subject": fact.subject,
            "subject_key": fact.subject_key,
            "relation": fact.relation,
            "relation_key": fact.relation_key,
            "object": fact.object,
            "object_key": fact.object_key,
            "category": fact.category,
            "category_key": fact.category_key,
            "context": fact.context,
            "context_key": fact.context_key,
            "confidence": fact.confidence,
            "status": status.value,
            "valid_from": fact.valid_from,
            "recorded_at": now_ms(),
            "source": fact.source,
            "text": fact.text,
        }
        return {
            "id": fact.id,
            "props": {k: v for k, v in props.items() if v is not None},
            "embedding": vectors[fact.text],
            "subject": fact.subject,
            "subject_key": fact.subject_key,
            "subject_embedding": vectors[fact.subject],
            "category": fact.category,
            "category_key": fact.category_key,
            "category_embedding": vectors[fact.category],
            "context": fact.context,
            "context_key": fact.context_key,
        }

    def _write_units(self, space: str, rows: Sequence[Mapping[str, Any]]) -> None:
        self._store.write_batches(
            "facts/write_units",
            rows,
            batch_size=self.memory.settings.batch_size,
            params={"space": space, "now": now_ms()},
        )

    def _write_supports(self, space: str, edges: Sequence[tuple[str, str]]) -> None:
        if edges:
            self._store.write_batches(
                "facts/write_supports",
                [{"source": a, "target": b} for a, b in edges],
                batch_size=self.memory.settings.batch_size,
                params={"space": space, "now": now_ms()},
            )

    def _apply(self, space: str, changes: Sequence[StatusChange]) -> None:
        """The single statement that makes an update visible (see apply_statuses.cypher)."""
        if changes:
            self._store.write(
                "facts/apply_statuses",
                {"space": space, "now": now_ms(), "changes": [c.as_row() for c in changes]},
            )

    def _slot_versions(
        self, space: str, slots: Sequence[Slot], *, any_context: bool = False
    ) -> dict[int, list[StoredUnit]]:
        rows = self._store.read(
            "facts/key_versions",
            {
                "space": space,
                "any_context": any_context,
                "keys": [
                    {"index": i, "subject": s, "relation": r, "context": c}
                    for i, (s, r, c) in enumerate(slots)
                ],
            },
        )
        found: dict[int, list[StoredUnit]] = {i: [] for i in range(len(slots))}
        for row in rows:
            found[int(row["key_index"])].append(_stored(row))
        return found

    def _ingest(
        self,
        space: str,
        batch: Sequence[Fact],
        existing: Mapping[str, MemoryUnit],
        vectors: Mapping[str, list[float]],
        on_progress: Progress | None,
    ) -> list[FactOutcome]:
        policy = self.config.policy
        slots = [
            (
                f.subject_key,
                f.relation_key,
                None if policy == UpdatePolicy.RELATION_LEVEL else f.context_key,
            )
            for f in batch
        ]
        outcomes: dict[int, FactOutcome] = {}
        # Facts that open a slot nothing else touches need no rewrite: write them in batches.
        fast: list[int] = []
        if policy == UpdatePolicy.APPEND_ONLY:
            fast = list(range(len(batch)))
        else:
            occupied = self._occupied_slots(space, slots, policy)
            counts: dict[Slot, int] = {}
            for slot in slots:
                counts[slot] = counts.get(slot, 0) + 1
            fast = [
                i
                for i, f in enumerate(batch)
                if not f.depends_on
                and f.id not in existing
                and counts[slots[i]] == 1
                and not occupied[i]
            ]
        fast_set = set(fast)
        for start in range(0, len(fast), self.memory.settings.batch_size):
            chunk = fast[start : start + self.memory.settings.batch_size]
            rows = [self._unit_row(batch[i], UnitStatus.ACTIVE, vectors) for i in chunk]
            self._write_units(space, rows)
            if policy == UpdatePolicy.APPEND_ONLY:
                self._write_supports(
                    space, [(d, batch[i].id) for i in chunk for d in batch[i].depends_on]
                )
            for i in chunk:
                action = "unchanged" if batch[i].id in existing else "created"
                outcomes[i] = FactOutcome(batch[i].id, batch[i].line, action, UnitStatus.ACTIVE)
            if on_progress is not None:
                on_progress(len(chunk))
        for i, fact in enumerate(batch):
            if i in fast_set:
                continue
            if policy == UpdatePolicy.RELATION_LEVEL:
                outcomes[i] = self._update_relation_level(space, fact, existing, vectors)
            else:
                outcomes[i] = self._update(space, fact, existing, vectors)
            if on_progress is not None:
                on_progress(1)
        return [outcomes[i] for i in range(len(batch))]

    def _occupied_slots(
        self, space: str, slots: Sequence[Slot], policy: UpdatePolicy
    ) -> list[bool]:
        occupied = [False] * len(slots)
        size = self.memory.settings.batch_size
        for start in range(0, len(slots), size):
            chunk = slots[start : start + size]
            found = self._slot_versions(
                space, chunk, any_context=policy == UpdatePolicy.RELATION_LEVEL
            )
            for offset, units in found.items():
                occupied[start + offset] = bool(units)
        return occupied

    # --- one update ----------------------------------------------------------------------------
    @staticmethod
    def temp_unit(fact: Fact, vectors: Mapping[str, list[float]]) -> TempUnit:
        """The temporary unit of an update (§3.2), anchored on its own subject."""
        return TempUnit(
            subjects={fact.subject_key: 1.0},
            relation_key=fact.relation_key,
            relation_terms=terms(fact.relation),
            category_key=fact.category_key,
            context_key=fact.context_key,
            moment=fact.valid_from,
            text=fact.text,
            embedding=tuple(vectors[fact.text]),
            object_key=fact.object_key,
        )

    def localise_fact(
        self, space: str, fact: Fact, vectors: Mapping[str, list[float]]
    ) -> Localisation:
        """Localisation of an update (§3.2). Its subject anchor is exact: a slot is (subject,
        relation, context) by normalised key, so Subject nodes with a close name (the vector
        anchors questions use) are never read or rewritten by an update. Its category is
        anchored exactly and by vector match, which only ranks the subject's MicroGraphs."""
        categories = self.localiser.category_anchors(
            space, fact.category_key, vectors[fact.category]
        )
        return self.localiser.localise(
            space, [self.temp_unit(fact, vectors)], categories=categories
        )

    def _update(
        self,
        space: str,
        fact: Fact,
        existing: Mapping[str, MemoryUnit],
        vectors: Mapping[str, list[float]],
    ) -> FactOutcome:
        """Coordinated rewriting (§3.3) of one fact: localise, write the new unit as pending,
        decide every status change, flip them in one statement."""
        now = now_ms()
        localisation = self.localise_fact(space, fact, vectors)
        existed = fact.id in existing
        # Step 1: the new unit and its dependency edges; `pending` keeps it out of the current
        # view until the flip.
        if not existed:
            self._write_units(space, [self._unit_row(fact, UnitStatus.PENDING, vectors)])
        self._write_supports(space, self._support_edges(space, fact))
        # Step 2: intra-unit rewriting of the slot.
        stored = self._slot_versions(space, [fact.key])[0]
        plan = plan_slot(stored, margin=self.config.margin, accept=self.config.accept, now=now)
        before = {s.unit.id: s.unit.status for s in stored}
        changes = {c.id: c for c in plan.changes}
        frontier = [
            c.id
            for c in plan.changes
            if (before.get(c.id) == UnitStatus.ACTIVE) != (c.status == UnitStatus.ACTIVE)
        ]
        frontier += [old for old in plan.transfers if old not in frontier]
        # Step 3: inter-unit rewriting, following dependents while statuses keep changing.
        transfer_edges, dependents_read = self._inter_unit(
            space, frontier, plan.transfers, changes, now
        )
        units_read = localisation.stats.units_read + len(stored) + dependents_read
        # Step 4: carried-over dependency edges, then every status at once.
        self._write_supports(space, transfer_edges)
        self._apply(space, list(changes.values()))
        final = {s.unit.id: s.unit.status for s in stored}
        final.update({cid: c.status for cid, c in changes.items()})
        status = final.get(fact.id, UnitStatus.PENDING)
        if existed:
            action = "unchanged"
        elif status == UnitStatus.PENDING:
            action = "pending"
        elif status == UnitStatus.SUPERSEDED:
            action = "historical"
        else:
            action = "created"
        path = localisation.best
        return FactOutcome(
            id=fact.id,
            line=fact.line,
            action=action,
            status=status,
            superseded=tuple(
                c.id
                for c in changes.values()
                if c.status == UnitStatus.SUPERSEDED and c.id != fact.id
            ),
            outdated=tuple(c.id for c in changes.values() if c.status == UnitStatus.OUTDATED),
            reactivated=tuple(
                c.id
                for c in changes.values()
                if c.status == UnitStatus.ACTIVE
                and c.id != fact.id
                and before.get(c.id) != UnitStatus.ACTIVE
            ),
            evidence_path=tuple(u.id for u in path.units) if path else (),
            units_read=units_read,
            localisation=localisation.stats,
        )

    def _inter_unit(
        self,
        space: str,
        frontier: list[str],
        transfers: Mapping[str, str],
        changes: dict[str, StatusChange],
        now: int,
    ) -> tuple[list[tuple[str, str]], int]:
        """Inter-unit rewriting (§3.3, eq. 10): read the dependents of the units whose status
        changed, decide theirs, and go on from those that change (adding to `changes`).
        Returns the carried-over SUPPORTS edges to write and how many units were read."""
        effective = {c.id: (c.status, c.valid_to) for c in changes.values()}
        edges: list[tuple[str, str]] = []
        read = 0
        for _ in range(self.config.max_cascade):
            if not frontier:
                break
            rows = [
                _stored(r)
                for r in self._store.read("facts/dependents", {"space": space, "ids": frontier})
            ]
            read += len(rows)
            extra: dict[str, list[str]] = {}
            for d in rows:
                for ref in d.supporters:
                    if ref.id in transfers:
                        extra.setdefault(d.unit.id, []).append(transfers[ref.id])
                        edges.append((transfers[ref.id], d.unit.id))
            frontier = []
            for change in plan_dependents(
                rows, effective=effective, extra_supporters=extra, now=now
            ):
                if changes.get(change.id) == change:
                    continue
                changes[change.id] = change
                effective[change.id] = (change.status, change.valid_to)
                frontier.append(change.id)
        return sorted(set(edges)), read

    def _support_edges(self, space: str, fact: Fact) -> list[tuple[str, str]]:
        """depends_on as edges, plus edges from the units that re-assert a supporter's value
        since it was superseded (so the arrival order of a re-assertion does not matter)."""
        edges = [(d, fact.id) for d in fact.depends_on]
        if fact.depends_on:
            rows = self._store.read(
                "facts/value_heads", {"space": space, "ids": list(fact.depends_on)}
            )
            edges += [(str(r["head"]), fact.id) for r in rows]
        return sorted(set(edges))

    def _update_relation_level(
        self,
        space: str,
        fact: Fact,
        existing: Mapping[str, MemoryUnit],
        vectors: Mapping[str, list[float]],
    ) -> FactOutcome:
        """Baseline: overwrite whatever is active for (subject, relation)."""
        existed = fact.id in existing
        if not existed:
            self._write_units(space, [self._unit_row(fact, UnitStatus.PENDING, vectors)])
            self._write_supports(space, [(d, fact.id) for d in fact.depends_on])
        stored = self._slot_versions(
            space, [(fact.subject_key, fact.relation_key, None)], any_context=True
        )[0]
        changes = plan_relation_level(stored, fact.id, at=fact.valid_from)
        self._apply(space, changes)
        return FactOutcome(
            id=fact.id,
            line=fact.line,
            action="unchanged" if existed else "created",
            status=UnitStatus.ACTIVE,
            superseded=tuple(c.id for c in changes if c.status == UnitStatus.SUPERSEDED),
            units_read=len(stored),
        )

    # --- reading (FactReader) ------------------------------------------------------------------
    def get(self, unit_id: str, *, space: str | None = None) -> MemoryUnit:
        """One unit by id (NotFound when absent)."""
        return self.reader.get(unit_id, space=space)

    def current(
        self,
        subject: str,
        *,
        space: str | None = None,
        relation: str | None = None,
        category: str | None = None,
        context: str | None = None,
        as_of: str | int | None = None,
    ) -> list[MemoryUnit]:
        """The subject's units valid now (active), or valid at `as_of` (ISO-8601 or epoch ms)."""
        return self.reader.current(
            subject, space=space, relation=relation, category=category, context=context, as_of=as_of
        )

    def history(
        self, subject: str, *, space: str | None = None, relation: str | None = None
    ) -> list[HistoryEntry]:
        """Every version of the subject's facts, whatever their status, oldest first."""
        return self.reader.history(subject, space=space, relation=relation)

    def path(self, unit_id: str, *, space: str | None = None) -> DependencyChain:
        """The dependency chain of a unit: what supports it and what depends on it."""
        return self.reader.path(unit_id, space=space)

    def ask(self, query: str | FactQuery, *, space: str | None = None, k: int = 10) -> AskResult:
        """The best evidence path for a question and its active units."""
        return self.reader.ask(query, space=space, k=k)

    def search(
        self, query: str | FactQuery, *, space: str | None = None, k: int = 10
    ) -> list[FactHit]:
        """Ranked active units for a question, best first, with scores."""
        return self.reader.search(query, space=space, k=k)

    def localise_question(
        self, query: str | FactQuery, *, space: str | None = None
    ) -> Localisation:
        """The full localisation (MicroGraphs, support subgraph, scored paths) of a question."""
        return self.reader.localise_question(query, space=space)
