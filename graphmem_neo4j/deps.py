"""What a layer service needs from its host, and nothing more.

A service takes `Parts` (the store, the embedder, an LLM bound to the space it writes, the
space checks) and `Defaults` (the few settings every layer shares), never the `GraphMemory`
facade: what a service can reach is visible in its signature, and nothing it does changes
state the facade or another service reads. `parts.MemoryParts` is the implementation
`GraphMemory` composes; tests may pass anything with these members.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from .embedder import Embedder
from .llm import LLMClient
from .store import GraphStore
from .task_similarity import KeyReader

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from .conversation.service import ConversationService
    from .experience.service import ExperienceService
    from .facts.service import FactService
    from .insights.service import InsightService


@dataclass(frozen=True)
class Defaults:
    """Settings every layer reads: the space of a call that names none, the write batch size,
    and what a failed LLM call does (`offline`: take the offline path; `error`: raise)."""

    space: str = "default"
    batch_size: int = 500
    llm_fallback: Literal["offline", "error"] = "offline"


class Parts(Protocol):
    @property
    def store(self) -> GraphStore: ...

    @property
    def embedder(self) -> Embedder: ...

    @property
    def defaults(self) -> Defaults: ...

    def llm_for(self, space: str) -> LLMClient | None:
        """The LLM (None when none is configured), its tokens booked to `space`."""
        ...

    def ensure_space(self, space: str) -> str:
        """Validate the name and create the space if it is new (before writes)."""
        ...

    def require_space(self, space: str) -> str:
        """Validate the name and refuse a space that holds no memory (before reads)."""
        ...

    def space_checked(self, space: str) -> AbstractContextManager[str]:
        """`require_space` once for a call that asks several layers: inside it, their own
        checks of the same space skip the read."""
        ...

    def structures(self, space: str, layer: str, *, fresh: bool = False) -> KeyReader:
        """How goal texts are read into task structures in a space (task_similarity)."""
        ...

    def ensure_embedder_matches(self) -> None:
        """Refuse an embedder other than the one the graph was built with."""
        ...


class Layers(Protocol):
    """The four layer services, for what works across layers (recall, a chat log): it reads
    and writes through each layer's own service."""

    @property
    def conversation(self) -> ConversationService: ...

    @property
    def facts(self) -> FactService: ...

    @property
    def insights(self) -> InsightService: ...

    @property
    def experience(self) -> ExperienceService: ...
