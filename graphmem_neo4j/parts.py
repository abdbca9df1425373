"""The parts every layer service runs on, opened lazily: the store, the embedder, the LLM
(metered per space), the schema checks and the usage ledger (`deps.Parts`, implemented).

`GraphMemory` composes one of these with the services; the services receive it typed as the
narrow `deps.Parts` protocol. The only state here is what opening and checking the parts
needs (each guarded by one lock), the ledger of tokens not yet written, keyed by space, and
the spaces a running `space_checked` call has already checked (so that the layers it asks
skip the same read): nothing records which space a caller is "in".
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from .deps import Defaults
from .embedder import Embedder, make_embedder
from .errors import GraphMemError, UnknownSpace
from .llm import LLMClient, make_llm
from .recall.cache import QueryMemo
from .schema import apply_migrations, check_embedding, now_ms, read_state
from .schema_types import Migration
from .settings import Settings
from .space_structures import SpaceModels
from .spaces import validate_space
from .store import GraphStore, open_store
from .task_similarity import KeyReader
from .token_ledger import UsageLedger, write_usage
from .tokens import LLMUsage, MeteredLLM, SpaceLLM


class MemoryParts:
    def __init__(
        self,
        settings: Settings,
        *,
        store: GraphStore | None = None,
        embedder: Embedder | None = None,
        llm: LLMClient | None = None,
    ) -> None:
        self.settings = settings
        self.defaults = Defaults(
            space=settings.space,
            batch_size=settings.batch_size,
            llm_fallback=settings.llm_fallback,
        )
        self._store = store
        self._embedder = embedder
        self._llm = llm
        self._llm_built = llm is not None
        self._schema_ready = False
        self._embedding_checked = False
        self.rebuilt_indexes: list[str] = []
        """Vector indexes the last `init` recreated with their space filter."""
        self._lock = threading.RLock()
        self.ledger = UsageLedger()
        self._checked: dict[str, int] = {}
        """Spaces checked by a `space_checked` call still running, and how many such calls."""
        self._models = SpaceModels(self.settings.domain_pack)

    # --- the parts -------------------------------------------------------------------------
    @property
    def store(self) -> GraphStore:
        with self._lock:
            if self._store is None:
                self._store = open_store(self.settings)
            return self._store

    def structures(self, space: str, layer: str, *, fresh: bool = False) -> KeyReader:
        """How goal texts are read into task structures in this space of this layer: the
        space's learned goal model and the domain pack, if one is on (task_similarity)."""
        return self._models.reader(self.store, space, layer, fresh=fresh)

    @property
    def embedder(self) -> Embedder:
        """The configured model behind a small memo of recent query texts (a recall asks all
        four layers about one query; the model embeds it once)."""
        with self._lock:
            if self._embedder is None:
                self._embedder = make_embedder(self.settings)
            if not isinstance(self._embedder, QueryMemo):
                self._embedder = QueryMemo(self._embedder)
            return self._embedder

    @property
    def meter(self) -> MeteredLLM | None:
        """The configured LLM, metered (None: callers take their offline path)."""
        with self._lock:
            if not self._llm_built:
                self._llm = make_llm(self.settings)
                self._llm_built = True
            if self._llm is not None and not isinstance(self._llm, MeteredLLM):
                self._llm = MeteredLLM(self._llm, self.ledger.add_llm)
            return self._llm

    def llm_for(self, space: str) -> SpaceLLM | None:
        meter = self.meter
        return meter.for_space(space) if meter is not None else None

    # --- schema and spaces -----------------------------------------------------------------
    def init(self) -> list[Migration]:
        """Apply pending migrations (what `graphmem init` does); returns those applied."""
        with self._lock:
            applied = apply_migrations(
                self.store,
                embedding_model=self.embedder.name,
                dimension=self.embedder.dimension,
            )
            # A store from a server without vector SEARCH, opened on one that has it.
            add_space_filters = getattr(self.store, "add_space_filters", None)
            if add_space_filters is not None:
                self.rebuilt_indexes = add_space_filters(self.embedder.dimension)
            self._schema_ready = True
            self._embedding_checked = True
            return applied

    def ensure_schema(self) -> None:
        """Before a write: the schema is current and the embedder matches the graph's.

        When nothing is pending and the graph names the configured model, the model is not
        loaded just to read its dimension (a name fixes the dimension)."""
        if self._schema_ready:
            return
        with self._lock:
            state = read_state(self.store)
            if not state.pending and state.embedding_model == self.embedder.name:
                self._schema_ready = True
                self._embedding_checked = True
                return
            self.init()

    def ensure_embedder_matches(self) -> None:
        """Before a vector read: refuse an embedder other than the one the graph was built with."""
        with self._lock:
            if self._embedding_checked:
                return
            check_embedding(read_state(self.store), self.embedder.name, self.embedder.dimension)
            self._embedding_checked = True

    def ensure_space(self, space: str) -> str:
        """Validate the name and create the space if it is new (writes only)."""
        validate_space(space)
        self.ensure_schema()
        self.store.write("core/ensure_space", {"space": space, "now": now_ms()})
        return space

    def require_space(self, space: str) -> str:
        """Validate the name and refuse a space that holds no memory (reads)."""
        validate_space(space)
        if space in self._checked:
            return space
        if not self.store.read("core/get_space", {"space": space}):
            known = [row["id"] for row in self.store.read("core/list_spaces")]
            hint = f"; known spaces: {', '.join(known)}" if known else "; no space exists yet"
            raise UnknownSpace(f"unknown space {space!r}{hint}")
        return space

    @contextmanager
    def space_checked(self, space: str) -> Iterator[str]:
        """Recall asks four layers and each checks the space: one read instead of five."""
        self.require_space(space)
        with self._lock:
            self._checked[space] = self._checked.get(space, 0) + 1
        try:
            yield space
        finally:
            with self._lock:
                self._checked[space] -= 1
                if not self._checked[space]:
                    del self._checked[space]

    # --- usage -----------------------------------------------------------------------------
    def flush_usage(self) -> None:
        """Add the tokens counted since the last flush to the spaces' totals in the graph
        (kept for the next flush if the write fails). Tokens an LLM call spent without
        naming a space (space "") count for the default space."""
        llm, recall = self.ledger.drain()
        if not llm and not recall:
            return
        if any(space == "" for space, _ in llm):
            resolved: dict[tuple[str, str], LLMUsage] = {}
            for (space, layer), usage in llm.items():
                key = (space or self.defaults.space, layer)
                resolved[key] = resolved.get(key, LLMUsage()) + usage
            llm = resolved
        try:
            write_usage(self.store, llm, recall)
        except GraphMemError:
            self.ledger.restore(llm, recall)
            raise

    def close_store(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None

    @property
    def store_open(self) -> bool:
        return self._store is not None
