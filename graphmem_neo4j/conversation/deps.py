"""What the conversation layer needs from its host, and nothing more.

`GraphMemory` provides all of it; the layer's modules take this protocol instead of the whole
facade, so what each of them reaches is visible in its signature. The parts are properties
because the host opens them lazily (the store connects and the model loads on first use).
"""

from __future__ import annotations

from typing import Protocol

from ..deps import Defaults
from ..embedder import Embedder
from ..llm import LLMClient
from ..store import GraphStore


class Parts(Protocol):
    @property
    def store(self) -> GraphStore: ...

    @property
    def embedder(self) -> Embedder: ...

    def llm_for(self, space: str) -> LLMClient | None: ...

    @property
    def defaults(self) -> Defaults:
        """The space of a call that names none, and what a failed LLM call does."""
        ...

    def ensure_space(self, space: str) -> str:
        """Validate the name and create the space if it is new (before writes)."""
        ...

    def require_space(self, space: str) -> str:
        """Validate the name and refuse a space that holds no memory (before reads)."""
        ...

    def ensure_embedder_matches(self) -> None:
        """Refuse an embedder other than the one the graph was built with."""
        ...
