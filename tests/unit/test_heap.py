"""GraphMemory freezes the startup heap once, unless told not to."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from graphmem_neo4j import heap
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings


@pytest.fixture
def thawed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    gc.unfreeze()
    monkeypatch.setattr(heap, "_frozen", False)
    yield
    gc.unfreeze()


def test_a_memory_freezes_what_is_alive_once(thawed: None) -> None:
    first = GraphMemory(Settings(embedder="hash"))
    frozen = gc.get_freeze_count()
    assert frozen > 1000  # the imported modules' functions, classes and dicts at least
    made_since = [{"n": i} for i in range(5000)]  # a second freeze would take these in
    second = GraphMemory(Settings(embedder="hash"))
    # Frozen objects freed meanwhile (by another thread, say) leave the count: it may shrink,
    # but it grows by thousands if the second memory froze again.
    assert gc.get_freeze_count() <= frozen
    assert first is not second and len(made_since) == 5000


def test_freezing_can_be_turned_off(thawed: None) -> None:
    GraphMemory(Settings(embedder="hash", freeze_heap=False))
    assert gc.get_freeze_count() == 0
    assert heap.freeze_startup_heap() is True
    assert heap.freeze_startup_heap() is False
