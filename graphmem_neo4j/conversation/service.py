"""The conversation layer's service: the only code that writes its part of the graph.

A thin composition of the layer's modules, one concern each: ingestion (ingest.py, with
plan.py and entities.py), retrieval (search.py, sf.py, fusion.py, ranker.py), access counts
(access.py), forgetting and restore (forget.py), and the space facts they share (state.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from .access import Accesses
from .deps import Parts
from .forget import Forgetter
from .ingest import Ingestor, Progress
from .models import (
    ConversationConfig,
    ForgetReport,
    ForgettingConfig,
    IngestReport,
    RestoreReport,
    SearchMode,
    SearchResult,
    TurnInput,
    config_for_model,
)
from .readers import InputFormat, QueryRow
from .search import Searcher
from .state import SpaceState, SpaceStats


class ConversationService:
    def __init__(self, parts: Parts, config: ConversationConfig | None = None) -> None:
        self.parts = parts
        self._searcher: Searcher | None = None
        # Without a configuration, the constants chosen for the configured embedding model.
        self.config = config or config_for_model(parts.embedder.name)

    @property
    def config(self) -> ConversationConfig:
        return self._config

    @config.setter
    def config(self, config: ConversationConfig) -> None:
        """The modules are rebuilt around a new configuration."""
        self.close()
        parts = self.parts
        self._config = config
        self._state = SpaceState(parts)
        self._accesses = Accesses(parts, self._state)
        self._forgetter = Forgetter(parts, config, self._state)
        self._searcher = Searcher(parts, config, self._state, self._accesses)
        self._ingestor = Ingestor(
            parts,
            config,
            self._state,
            forget=lambda space: self.forget(space=space),
            default_space=parts.defaults.space,
            llm_fallback=parts.defaults.llm_fallback == "offline",
        )

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
        return self._ingestor.ingest_file(
            path, fmt=fmt, space=space, on_progress=on_progress, forget_every=forget_every
        )

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
        return self._ingestor.add_turns(
            turns, space=space, on_progress=on_progress, forget_every=forget_every
        )

    # --- space facts -----------------------------------------------------------------------
    # Read from the graph on every call: another process may have changed it since.
    def space_stats(self, space: str) -> SpaceStats:
        return self._state.facts(space).stats

    def query_texts(self, query: str) -> list[str]:
        """The texts a hybrid search embeds for `query`, the query and its concept probes
        (recall embeds them in its model calls)."""
        assert self._searcher is not None
        searcher = self._searcher
        return [searcher.query_text(query), *searcher.concept_probes(query)]

    def speakers(self, space: str) -> frozenset[str]:
        return self._state.facts(space).speakers

    def clock(self, space: str) -> int:
        """Turns ever ingested into the space: the time axis of forgetting (turn age)."""
        return self._state.facts(space).clock

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
        assert self._searcher is not None
        return self._searcher.search(query, space=space, k=k, mode=mode, touch=touch)

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
        assert self._searcher is not None
        return self._searcher.search_batch(rows, space=space, k=k, mode=mode, touch=touch)

    def touch(
        self,
        turn_ids: Sequence[str],
        *,
        space: str,
        clock: int | None = None,
        later: bool = False,
    ) -> None:
        """Count turns as accessed, as a search does for what it returns (recall calls this
        for the turns it put in a context), at the space's `clock` (read now when None). With
        `later`, the write runs after the caller goes on, as a search's does (`settle`)."""
        if turn_ids:
            self._accesses.record(space, turn_ids, clock=clock, later=later)

    def settle(self) -> None:
        """Wait until the access counts of earlier searches (and recalls) are written."""
        if self._searcher is not None:
            self._accesses.settle()

    def close(self) -> None:
        """Write the pending access counts and stop the search helper threads (idle threads
        also end with the interpreter)."""
        if self._searcher is not None:
            self._accesses.close()
            self._searcher.close()

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
        self.settle()  # forgetting reads the access counts
        return self._forgetter.forget(space=space, dry_run=dry_run, config=config, archive=archive)

    def restore(self, *, space: str, run_id: str | None = None) -> RestoreReport:
        """Bring archived nodes back (all, or one run's) with the edges whose other end still
        exists; the archive records are removed afterwards."""
        return self._forgetter.restore(space=space, run_id=run_id)
