"""The query memo in front of the embedder, and GraphMemory.open (no database)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from graphmem_neo4j.embedder import HashEmbedder
from graphmem_neo4j.errors import ConfigError
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.recall.cache import MAX_TEXTS_PER_CALL, QueryMemo
from graphmem_neo4j.settings import Settings
from tests.fakes.embedders import CountingEmbedder


def test_a_query_is_embedded_once() -> None:
    inner = CountingEmbedder(16)
    memo = QueryMemo(inner)
    first = memo.embed(["where does Maya live?"])
    second = memo.embed(["where does Maya live?"])
    assert first == second == inner.embed(["where does Maya live?"])
    assert inner.calls[:1] == [["where does Maya live?"]] and len(inner.calls) == 2
    assert memo.name == inner.name and memo.dimension == 16


def test_only_the_missing_texts_reach_the_model() -> None:
    inner = CountingEmbedder(16)
    memo = QueryMemo(inner)
    memo.embed(["a b"])
    out = memo.embed(["a b", "c d", "c d"])
    assert inner.calls == [["a b"], ["c d"]]
    assert out[1] == out[2] == HashEmbedder(16).embed(["c d"])[0]


def test_clear_makes_the_model_run_again() -> None:
    inner = CountingEmbedder(16)
    memo = QueryMemo(inner)
    memo.embed(["a b"])
    memo.clear()
    memo.embed(["a b"])
    assert inner.calls == [["a b"], ["a b"]]


def test_reserved_texts_are_embedded_once_by_whoever_reserved_them() -> None:
    inner = CountingEmbedder(16)
    memo = QueryMemo(inner)
    run = memo.reserve(["query", "task", "skeleton"])
    got: list[list[list[float]]] = []
    asker = threading.Thread(target=lambda: got.append(memo.embed(["task"])))
    asker.start()
    asker.join(0.2)
    assert asker.is_alive() and inner.calls == []  # waits for the reserved call
    run()
    asker.join(5)
    assert inner.calls == [["query", "task", "skeleton"]]
    assert got == [HashEmbedder(16).embed(["task"])]


def test_batches_and_long_texts_bypass_the_memo() -> None:
    inner = CountingEmbedder(16)
    memo = QueryMemo(inner)
    batch = [f"turn {i}" for i in range(MAX_TEXTS_PER_CALL + 1)]
    memo.embed(batch)
    memo.embed(batch)
    assert len(inner.calls) == 2
    long_text = "x" * 5000
    memo.embed([long_text])
    memo.embed([long_text])
    assert len(inner.calls) == 4


def test_the_oldest_entries_go_first_and_results_are_copies() -> None:
    inner = CountingEmbedder(16)
    memo = QueryMemo(inner, size=2)
    memo.embed(["one"])
    memo.embed(["two"])
    memo.embed(["one"])  # refreshes "one"
    memo.embed(["three"])  # evicts "two"
    memo.embed(["one"])
    memo.embed(["two"])
    assert [c[0] for c in inner.calls] == ["one", "two", "three", "two"]
    vector = memo.embed(["one"])[0]
    vector[0] = 99.0
    assert memo.embed(["one"])[0][0] != 99.0


def test_threads_asking_at_once_share_one_model_call() -> None:
    started = threading.Event()
    release = threading.Event()

    class Slow(CountingEmbedder):
        def embed(self, texts: Sequence[str]) -> list[list[float]]:
            started.set()
            release.wait(5)
            return super().embed(texts)

    inner = Slow(16)
    memo = QueryMemo(inner)
    results: list[list[list[float]]] = []
    first = threading.Thread(target=lambda: results.append(memo.embed(["the query"])))
    first.start()
    started.wait(5)
    second = threading.Thread(target=lambda: results.append(memo.embed(["the query", "more"])))
    second.start()
    release.set()
    first.join(5)
    second.join(5)
    # "the query" once, though asked twice (the two calls may finish in either order)
    assert sorted(inner.calls) == [["more"], ["the query"]]
    assert results[0][0] == results[1][0]


def test_a_failed_model_call_fails_its_waiters_and_is_not_remembered() -> None:
    class Broken(CountingEmbedder):
        def embed(self, texts: Sequence[str]) -> list[list[float]]:
            self.calls.append(list(texts))
            raise RuntimeError("model crashed")

    inner = Broken(16)
    memo = QueryMemo(inner)
    for _ in range(2):
        with pytest.raises(RuntimeError):
            memo.embed(["q"])
    assert inner.calls == [["q"], ["q"]]


def test_memory_puts_the_memo_in_front_of_its_embedder() -> None:
    inner = CountingEmbedder(16)
    memory = GraphMemory(Settings(), embedder=inner)
    assert isinstance(memory.embedder, QueryMemo)
    assert memory.embedder.name == inner.name
    assert memory.embedder is memory.embedder  # wrapped once


def test_open_from_options_and_from_settings(tmp_path: Path) -> None:
    memory = GraphMemory.open(home=tmp_path, space="team-a", embedder="hash")
    assert memory.settings.space == "team-a" and memory.settings.home == tmp_path
    base = Settings(home=tmp_path, space="one")
    assert GraphMemory.open(base).settings is base
    assert GraphMemory.open(base, space="two").settings.space == "two"
    with pytest.raises(ConfigError, match="embedded_port"):
        GraphMemory.open(embedded_port=0)
    with GraphMemory.open(home=tmp_path) as opened:  # a context manager; nothing opened yet
        assert opened.settings.home == tmp_path


def test_options_on_top_of_settings_are_validated(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="llm"):
        GraphMemory.open(Settings(home=tmp_path), llm="gpt-please")
