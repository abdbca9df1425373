"""graphmem-neo4j: long-term graph memory for LLM agents on Neo4j and embedded FalkorDB."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .memory import GraphMemory
    from .settings import Settings

__all__ = ["GraphMemory", "Settings", "__version__"]


def __getattr__(name: str) -> Any:  # lazy, so `import graphmem_neo4j` stays light
    if name == "GraphMemory":
        from .memory import GraphMemory

        return GraphMemory
    if name == "Settings":
        from .settings import Settings

        return Settings
    raise AttributeError(name)
