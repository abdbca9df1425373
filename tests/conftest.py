"""Shared fixtures. Every test runs with GRAPHMEM_* cleared and its own GRAPHMEM_HOME; the
integration suite shares one embedded FalkorDB per session (a fresh graph per test) and a
Neo4j: GRAPHMEM_TEST_NEO4J_URI, else a local Neo4j from neo4j-local/, else testcontainers.
With GRAPHMEM_TEST_REQUIRE_ENGINES=1 (.ci/run sets it) a test that cannot get its engine or
browser fails instead of skipping: on our machines every one of them must run."""

from __future__ import annotations

import os
import shutil
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem_neo4j.browse import post_connect_command
from graphmem_neo4j.embedder import HashEmbedder, SentenceTransformerEmbedder
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store import local_neo4j
from graphmem_neo4j.store.embedded import EmbeddedServer
from tests.fakes.openai_server import FakeOpenAI

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No test sees the developer's GRAPHMEM_* settings or ~/.graphmem."""
    for key in list(os.environ):
        if key.startswith("GRAPHMEM_") and not key.startswith("GRAPHMEM_TEST_"):
            monkeypatch.delenv(key)
    home = tmp_path / "graphmem-home"
    monkeypatch.setenv("GRAPHMEM_HOME", str(home))
    return home


def skip_for_want_of(reason: str) -> None:
    """Skip a test whose engine (or browser) is missing here, or fail it where every engine
    must be present (GRAPHMEM_TEST_REQUIRE_ENGINES=1, as in CI)."""
    if os.environ.get("GRAPHMEM_TEST_REQUIRE_ENGINES") == "1":
        pytest.fail(f"GRAPHMEM_TEST_REQUIRE_ENGINES=1 but {reason}", pytrace=False)
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def falkordb_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServer]:
    server = EmbeddedServer(tmp_path_factory.mktemp("falkordb-home"))  # the Unix socket only
    server.ensure_running()
    yield server
    server.stop()


def _docker_answers() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        import docker  # type: ignore[import-untyped]

        docker.from_env().ping()
    except Exception:
        return False
    return True


def neo4j_test_line() -> local_neo4j.Line:
    """The Neo4j line the local test server runs: GRAPHMEM_TEST_NEO4J_LINE (5.26 or 2026),
    else the default (`make test-neo4j-2026` runs the Neo4j tests on 2026)."""
    return local_neo4j.line_named(os.environ.get("GRAPHMEM_TEST_NEO4J_LINE"))


@pytest.fixture(scope="session")
def local_neo4j_server(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[local_neo4j.LocalNeo4j]:
    """The session's local Neo4j, as `graphmem neo4j start` runs it: Bolt, and Neo4j Browser
    on an HTTP port applying graphmem's style on connect. Its folder is `<home>/neo4j`
    (`neo4j-2026` for that line), so GRAPHMEM_HOME=<home> finds it the way the CLI does.
    Skipped with the reason when no local Neo4j can start here."""
    line = neo4j_test_line()
    reason = local_neo4j.unavailable_reason(line=line)
    if reason is not None:
        skip_for_want_of(f"no local Neo4j: {reason}")
    server = local_neo4j.LocalNeo4j(
        tmp_path_factory.mktemp("neo4j-home") / line.folder,
        free_port(),
        http_port=free_port(),
        post_connect=post_connect_command(),
        line=line,
    )
    server.start()  # attached: it stops with this process, however that ends
    yield server
    server.stop()


@pytest.fixture(scope="session")
def neo4j_uri(request: pytest.FixtureRequest) -> Iterator[tuple[str, str, str]]:
    """(uri, user, password) of a live Neo4j, or skip with the reason."""
    uri = os.environ.get("GRAPHMEM_TEST_NEO4J_URI")
    if uri:
        yield (
            uri,
            os.environ.get("GRAPHMEM_TEST_NEO4J_USER", "neo4j"),
            os.environ.get("GRAPHMEM_TEST_NEO4J_PASSWORD", "password"),
        )
        return
    if (
        local_neo4j.unavailable_reason(line=neo4j_test_line()) is None
        or os.environ.get("GRAPHMEM_TEST_NEO4J_LINE")  # that line or a clear failure
    ):
        server: local_neo4j.LocalNeo4j = request.getfixturevalue("local_neo4j_server")
        yield server.uri, "neo4j", server.password()
        return
    if not _docker_answers():
        skip_for_want_of(
            "no Neo4j: GRAPHMEM_TEST_NEO4J_URI is unset, no local Neo4j "
            f"({local_neo4j.unavailable_reason()}) and no Docker engine answers"
        )
    from testcontainers.neo4j import Neo4jContainer

    with Neo4jContainer("neo4j:5") as container:
        yield container.get_connection_url(), "neo4j", container.password


@pytest.fixture(scope="session")
def minilm() -> SentenceTransformerEmbedder:
    """The real default model, loaded once per session."""
    embedder = SentenceTransformerEmbedder()
    embedder.embed(["warm up"])
    return embedder


@pytest.fixture
def hash_embedder() -> HashEmbedder:
    return HashEmbedder(64)


@pytest.fixture(params=["falkordb", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def engine_settings(request: pytest.FixtureRequest) -> Settings:
    """Settings for a fresh, empty graph on each engine."""
    if request.param == "falkordb":
        server: EmbeddedServer = request.getfixturevalue("falkordb_server")
        return Settings(
            home=server.home,
            database=f"test_{uuid.uuid4().hex[:12]}",
        )
    uri, user, password = request.getfixturevalue("neo4j_uri")
    # Neo4j Community has one user database: each test starts from an empty one.
    empty_neo4j(uri, user, password)
    return Settings(uri=uri, user=user, password=password)


def reset_neo4j(uri: str, user: str, password: str) -> None:
    """Empty the database to a store with no schema at all: data, then indexes and
    constraints (for the tests of the schema itself; the others use `empty_neo4j`)."""
    import neo4j

    with neo4j.GraphDatabase.driver(uri, auth=(user, password)) as driver:
        with driver.session() as session:  # IN TRANSACTIONS needs an auto-commit transaction
            session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS").consume()
        for record in driver.execute_query("SHOW CONSTRAINTS YIELD name").records:
            driver.execute_query("DROP CONSTRAINT $name IF EXISTS", name=record["name"])
        for record in driver.execute_query(
            "SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name"
        ).records:
            driver.execute_query("DROP INDEX $name IF EXISTS", name=record["name"])


def empty_neo4j(uri: str, user: str, password: str) -> None:
    """An empty database as a fresh one behaves, at a fraction of `reset_neo4j`'s cost: every
    node goes, the schema and migration records with them, so the next GraphMemory applies
    every migration again; each is IF NOT EXISTS, so the range, full-text and uniqueness
    indexes left in place make them quick. Vector indexes are dropped: they fix a dimension,
    and the next test may embed with another one."""
    import neo4j

    with neo4j.GraphDatabase.driver(uri, auth=(user, password)) as driver:
        with driver.session() as session:  # IN TRANSACTIONS needs an auto-commit transaction
            session.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS").consume()
        for record in driver.execute_query(
            "SHOW INDEXES YIELD name, type WHERE type = 'VECTOR' RETURN name"
        ).records:
            driver.execute_query("DROP INDEX $name IF EXISTS", name=record["name"])


@pytest.fixture
def memory(engine_settings: Settings, hash_embedder: HashEmbedder) -> Iterator[GraphMemory]:
    """A GraphMemory on a fresh graph with the fast hash embedder."""
    with GraphMemory(engine_settings, embedder=hash_embedder) as mem:
        yield mem


@pytest.fixture
def space() -> str:
    """A space name no other test uses (spaces isolate tests on a shared Neo4j)."""
    return f"t-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    yield server
    server.close()
