"""What the insights layer needs from its host, and nothing more.

`GraphMemory` provides all of it; the layer's modules (retrieval, recording, judging, reading)
take this protocol instead of the whole facade, so what each of them reaches is visible in its
signature. The parts are properties because the host opens them lazily.
"""

from __future__ import annotations

from typing import Protocol

from ..embedder import Embedder
from ..llm import LLMClient
from ..settings import Settings
from ..store import GraphStore
from ..task_similarity import KeyReader


class Parts(Protocol):
    @property
    def store(self) -> GraphStore: ...

    @property
    def embedder(self) -> Embedder: ...

    def llm_for(self, space: str) -> LLMClient | None:
        """The LLM, its tokens booked to `space`; None without one (the offline path)."""
        ...

    @property
    def settings(self) -> Settings: ...

    def ensure_space(self, space: str) -> str:
        """Validate the name and create the space if it is new (before writes)."""
        ...

    def require_space(self, space: str) -> str:
        """Validate the name and refuse a space that holds no memory (before reads)."""
        ...

    def structures(self, space: str, layer: str, *, fresh: bool = False) -> KeyReader:
        """How goal texts are read into task structures in a space (task_similarity)."""
        ...

    def ensure_embedder_matches(self) -> None:
        """Refuse an embedder other than the one the graph was built with."""
        ...
