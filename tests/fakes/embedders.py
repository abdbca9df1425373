"""Embedders for tests."""

from __future__ import annotations

from collections.abc import Sequence

from graphmem_neo4j.embedder import HashEmbedder


class CountingEmbedder(HashEmbedder):
    """The hash embedder, keeping the texts of every call."""

    def __init__(self, dimension: int = 64) -> None:
        super().__init__(dimension)
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return super().embed(texts)
