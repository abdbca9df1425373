"""The facts layer's service: the only code that writes its part of the graph."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..memory import GraphMemory


class FactService:
    def __init__(self, memory: GraphMemory) -> None:
        self.memory = memory
