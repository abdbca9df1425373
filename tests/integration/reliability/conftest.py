"""Fixtures of the reliability tests. Tests that kill the engine get a private embedded server
(their own home and port), never the session's shared one."""

from __future__ import annotations

import contextlib
import os
import signal
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store.base import BatchingMixin, GraphStore, Params, Row
from graphmem_neo4j.store.embedded import EmbeddedServer
from tests.conftest import empty_neo4j, free_port

from .helpers import cli_env, settings_for


@dataclass(frozen=True)
class Engine:
    """Where `graphmem` processes of a test write: `fresh()` gives the environment of a
    process on an empty graph (a new FalkorDB graph; on Neo4j, which has one database, the
    database emptied), `settings(env)` the same graph for a GraphMemory in the test."""

    name: str
    fresh: Callable[[], dict[str, str]]
    settings: Callable[[Mapping[str, str]], Settings]


@pytest.fixture(params=["falkordb", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def engine(request: pytest.FixtureRequest) -> Engine:
    if request.param == "falkordb":
        server: EmbeddedServer = request.getfixturevalue("falkordb_server")
        return Engine(
            "falkordb",
            lambda: cli_env(server, f"rel_{uuid.uuid4().hex[:10]}"),
            lambda env: settings_for(server, env["GRAPHMEM_DATABASE"]),
        )
    uri, user, password = request.getfixturevalue("neo4j_uri")

    def fresh() -> dict[str, str]:
        empty_neo4j(uri, user, password)
        env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
        env.update(
            GRAPHMEM_URI=uri,
            GRAPHMEM_USER=user,
            GRAPHMEM_PASSWORD=password,
            GRAPHMEM_EMBEDDER="hash",
            PYTHONPATH=str(Path(__file__).resolve().parents[3]),
        )
        return env

    return Engine(
        "neo4j",
        fresh,
        lambda env: Settings(uri=uri, user=user, password=password, embedder="hash"),
    )


@pytest.fixture
def private_server(tmp_path: Path) -> Iterator[EmbeddedServer]:
    """An embedded FalkorDB this test alone uses, so it may kill it."""
    server = EmbeddedServer(tmp_path / "engine-home", free_port())
    server.ensure_running()
    yield server
    with contextlib.suppress(Exception):
        server.stop(timeout=10)


@pytest.fixture
def shared_env(falkordb_server: EmbeddedServer) -> dict[str, str]:
    """Environment of a `graphmem` process on the session's server, in a fresh graph."""
    return cli_env(falkordb_server, f"rel_{uuid.uuid4().hex[:10]}")


@pytest.fixture
def cli_settings(
    falkordb_server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch
) -> dict[str, str]:
    """The same, as variables of this process (for Typer's CliRunner)."""
    env = {
        "GRAPHMEM_HOME": str(falkordb_server.home),
        "GRAPHMEM_DATABASE": f"rel_{uuid.uuid4().hex[:10]}",
        "GRAPHMEM_EMBEDDER": "hash",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


def cli_memory(env: Mapping[str, str], server: EmbeddedServer) -> GraphMemory:
    """A GraphMemory on the graph a CLI environment writes to."""
    return GraphMemory(settings_for(server, env["GRAPHMEM_DATABASE"]))


def kill_engine(server: EmbeddedServer) -> int:
    """SIGKILL the embedded server; returns the pid it had."""
    pid = server.status().pid
    assert pid is not None, "the embedded server is not running"
    os.kill(pid, signal.SIGKILL)
    return pid


class AckStore(BatchingMixin):
    """A store that passes every query through and remembers each write the engine
    acknowledged (the statement returned), in order. `after_ack(n)` runs after the n-th."""

    def __init__(self, inner: GraphStore, after_ack: Callable[[int], None] | None = None) -> None:
        self.inner = inner
        self.dialect = inner.dialect
        self.target = inner.target
        self.acked: list[tuple[str, dict[str, Any]]] = []
        self.after_ack = after_ack

    def read(self, query: str, params: Params | None = None) -> list[Row]:
        return self.inner.read(query, params)

    def write(self, query: str, params: Params | None = None) -> list[Row]:
        rows = self.inner.write(query, params)
        self.acked.append((query, dict(params or {})))
        if self.after_ack is not None:
            self.after_ack(len(self.acked))
        return rows

    def ensure_unique(self, label: str, properties: Sequence[str]) -> None:
        self.inner.ensure_unique(label, properties)

    def checkpoint(self) -> None:
        self.inner.checkpoint()

    def ping(self) -> None:
        self.inner.ping()

    def server_info(self) -> dict[str, Any]:
        return self.inner.server_info()

    def close(self) -> None:
        self.inner.close()
