"""GraphMemory: the facade that opens the store and hands it to the layer services."""

from __future__ import annotations

import threading
from functools import cached_property
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .embedder import Embedder, make_embedder
from .errors import UnknownSpace
from .llm import LLMClient, make_llm
from .schema import SYSTEM_LABELS, apply_migrations, check_embedding, now_ms, read_state
from .schema_types import Migration
from .settings import Settings
from .spaces import validate_space
from .store import GraphStore, open_store

if TYPE_CHECKING:
    from .conversation.service import ConversationService
    from .experience.service import ExperienceService
    from .facts.service import FactService
    from .insights.service import InsightService


class GraphMemory:
    """One memory: a store, an embedder, an optional LLM, and the four layers over them.

    Everything is opened lazily, so building a GraphMemory is cheap and `close()` is safe.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        store: GraphStore | None = None,
        embedder: Embedder | None = None,
        llm: LLMClient | None = None,
    ) -> None:
        self.settings = settings if settings is not None else Settings()
        self._store = store
        self._embedder = embedder
        self._llm = llm
        self._llm_built = llm is not None
        self._schema_ready = False
        self._embedding_checked = False
        self._lock = threading.RLock()

    # --- parts -----------------------------------------------------------------------------
    @property
    def store(self) -> GraphStore:
        with self._lock:
            if self._store is None:
                self._store = open_store(self.settings)
            return self._store

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = make_embedder(self.settings)
            return self._embedder

    @property
    def llm(self) -> LLMClient | None:
        """None when no LLM is configured: callers take their offline path."""
        with self._lock:
            if not self._llm_built:
                self._llm = make_llm(self.settings)
                self._llm_built = True
            return self._llm

    # --- schema and spaces -----------------------------------------------------------------
    def init(self) -> list[Migration]:
        """Apply pending migrations (what `graphmem init` does); returns those applied."""
        with self._lock:
            applied = apply_migrations(
                self.store,
                embedding_model=self.embedder.name,
                dimension=self.embedder.dimension,
            )
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
        if not self.store.read("core/get_space", {"space": space}):
            known = [row["id"] for row in self.store.read("core/list_spaces")]
            hint = f"; known spaces: {', '.join(known)}" if known else "; no space exists yet"
            raise UnknownSpace(f"unknown space {space!r}{hint}")
        return space

    def spaces(self) -> list[dict[str, Any]]:
        return self.store.read("core/list_spaces")

    def stats(self, space: str) -> dict[str, Any]:
        """Node counts per label and relationship counts per type in one space."""
        self.require_space(space)
        nodes = {
            row["label"]: int(row["count"])
            for row in self.store.read("core/count_labels", {"space": space})
            if row["label"] not in SYSTEM_LABELS
        }
        rels = {
            row["type"]: int(row["count"])
            for row in self.store.read("core/count_relationships", {"space": space})
        }
        return {
            "space": space,
            "nodes": nodes,
            "relationships": rels,
            "total_nodes": sum(nodes.values()),
            "total_relationships": sum(rels.values()),
        }

    # --- layers ----------------------------------------------------------------------------
    @cached_property
    def conversation(self) -> ConversationService:
        from .conversation.service import ConversationService

        return ConversationService(self)

    @cached_property
    def facts(self) -> FactService:
        from .facts.service import FactService

        return FactService(self)

    @cached_property
    def insights(self) -> InsightService:
        from .insights.service import InsightService

        return InsightService(self)

    @cached_property
    def experience(self) -> ExperienceService:
        from .experience.service import ExperienceService

        return ExperienceService(self)

    # --- lifecycle -------------------------------------------------------------------------
    def close(self) -> None:
        with self._lock:
            if "conversation" in self.__dict__:
                self.conversation.close()
            if self._store is not None:
                self._store.close()
                self._store = None

    def __enter__(self) -> GraphMemory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
