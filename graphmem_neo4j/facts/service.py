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
from typing import Any

from ..deps import Parts
from ..errors import InputError, LLMError
from ..schema import now_ms
from .config import FactConfig
from .llm_extract import extract_with_llm
from .localise import Localiser
from .models import Fact, FactInput, FactQuery, IngestReport, MemoryUnit
from .parsing import normalise_all, parse_fact, read_facts_file
from .patterns import parse_statements
from .reader import FactReader
from .results import AskResult, DependencyChain, FactHit, HistoryEntry, Localisation
from .update import Updater
from .writes import UnitWrites

Progress = Callable[[int], None]


class FactService:
    def __init__(self, parts: Parts, config: FactConfig | None = None) -> None:
        self.parts = parts
        self.config = config or FactConfig()
        self.reader = FactReader(parts, self.config)
        self._clock_lock = threading.Lock()
        self._last_time = 0

    # --- plumbing ----------------------------------------------------------------------------
    @property
    def localiser(self) -> Localiser:
        return self.reader.localiser

    @property
    def updater(self) -> Updater:
        return Updater(UnitWrites(self.parts.store, self.parts.defaults.batch_size), self.config)

    def _space(self, space: str | None) -> str:
        return space if space is not None else self.parts.defaults.space

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
        self.parts.ensure_space(space)
        existing = self._check_ids(space, batch, source_name)
        self._check_dependencies(space, batch, source_name)
        vectors = self._embed(batch)
        outcomes = self.updater.ingest(space, batch, existing, vectors, on_progress)
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
        llm = self.parts.llm_for(self._space(space)) if use_llm is not False else None
        if use_llm and llm is None:
            raise InputError("no LLM is configured (GRAPHMEM_LLM=openai)", field="llm")
        if llm is not None:
            try:
                facts, _ = extract_with_llm(llm, text, source=source)
            except LLMError:
                if self.parts.defaults.llm_fallback != "offline":
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
        vectors = self.parts.embedder.embed(texts)
        return dict(zip(texts, vectors, strict=True))

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
