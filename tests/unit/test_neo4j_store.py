"""Neo4jStore against a fake driver: which session, access mode and transaction kind each
call uses (reads auto-commit, writes managed), which query text and parameters reach the
driver, and how driver errors become graphmem errors. The live behaviour is covered by the
`neo4j`-marked integration tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import neo4j
import neo4j.exceptions as errs
import pytest

from graphmem_neo4j.errors import AuthenticationFailed, EngineUnavailable, InputError, QueryError
from graphmem_neo4j.queries import load_query
from graphmem_neo4j.settings import parse_uri
from graphmem_neo4j.store.neo4j_store import Neo4jStore


class FakeRecord:
    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def items(self) -> list[tuple[str, Any]]:
        return list(self._data.items())


class FakeResult(list[FakeRecord]):
    def consume(self) -> None:
        return None


@dataclass
class FakeDriver:
    uri: str
    auth: Any
    connect_error: Exception | None = None
    query_error: Exception | None = None
    rows: list[dict[str, Any]] = field(default_factory=list)
    runs: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    calls: list[tuple[str, str, Any, Any]] = field(default_factory=list)
    closed: bool = False
    agent: str = "Neo4j/5.26.30"
    read_errors: list[Exception] = field(default_factory=list)
    """Raised, in order, by the next auto-commit runs (then `query_error`, if set)."""

    def session(self, *, database: str, bookmark_manager: Any, default_access_mode: str) -> Any:
        driver = self

        class FakeSession:
            def __enter__(self) -> FakeSession:
                return self

            def __exit__(self, *_: object) -> None:
                return None

            def run(self, text: str, params: dict[str, Any]) -> FakeResult:
                driver.calls.append(("run", database, default_access_mode, bookmark_manager))
                driver.runs.append((text, params))
                if driver.read_errors:
                    raise driver.read_errors.pop(0)
                if driver.query_error is not None:
                    raise driver.query_error
                return FakeResult([FakeRecord(row) for row in driver.rows])

        return FakeSession()

    def verify_connectivity(self) -> None:
        if self.connect_error is not None:
            raise self.connect_error

    def execute_query(
        self,
        text: str,
        params: dict[str, Any],
        *,
        database_: str,
        routing_: Any,
        bookmark_manager_: Any,
    ) -> tuple[list[FakeRecord], None, list[str]]:
        self.calls.append(("execute_query", database_, routing_, bookmark_manager_))
        self.runs.append((text, params))
        if self.query_error is not None:
            raise self.query_error
        return [FakeRecord(row) for row in self.rows], None, []

    def get_server_info(self) -> Any:
        from types import SimpleNamespace

        return SimpleNamespace(agent=self.agent, protocol_version=(5, 8))

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def fake_driver(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Every GraphDatabase.driver(...) call returns a FakeDriver configured by `config`."""
    config: dict[str, Any] = {"connect_error": None, "made": [], "agent": "Neo4j/5.26.30"}

    def make(uri: str, *, auth: Any, **_: Any) -> FakeDriver:
        driver = FakeDriver(uri, auth, connect_error=config["connect_error"], agent=config["agent"])
        config["made"].append(driver)
        return driver

    monkeypatch.setattr(neo4j.GraphDatabase, "driver", make)
    return config


def open_store(uri: str = "neo4j://db.example:7687", password: str | None = "pw") -> Neo4jStore:
    return Neo4jStore(parse_uri(uri), user="neo4j", password=password, database="memory")


def test_reads_are_routed_to_readers_in_the_named_database(fake_driver: dict[str, Any]) -> None:
    """A read is one auto-commit run in a read session of the named database."""
    store = open_store()
    driver = fake_driver["made"][0]
    driver.rows = [{"label": "Turn", "n": 3}]
    rows = store.read("core/count_labels", {"space": "demo"})
    assert rows == [{"label": "Turn", "n": 3}]
    assert [call[:3] for call in driver.calls] == [("run", "memory", neo4j.READ_ACCESS)]
    text, params = driver.runs[0]
    assert text == load_query("core/count_labels", "neo4j")
    assert params == {"space": "demo"}


def test_writes_go_to_the_leader_and_reads_follow_them(fake_driver: dict[str, Any]) -> None:
    """Writes are managed transactions routed to the leader; every call shares one bookmark
    manager, so a read after a write waits for it on any cluster member (read-your-writes)."""
    store = open_store()
    driver = fake_driver["made"][0]
    store.write("core/ensure_space", {"space": "demo", "now": 1})
    store.read("core/get_space", {"space": "demo"})
    (kind, db, write_routing, write_bookmarks), (_, _, read_mode, read_bookmarks) = driver.calls
    assert (kind, db, write_routing, read_mode) == (
        "execute_query",
        "memory",
        neo4j.RoutingControl.WRITE,
        neo4j.READ_ACCESS,
    )
    assert write_bookmarks is read_bookmarks is not None


def test_a_read_the_driver_may_retry_is_retried_as_a_managed_transaction(
    fake_driver: dict[str, Any],
) -> None:
    """A read that fails with a retryable error (a cluster member gone) is sent again as a
    managed read, which the driver retries; a read the server refuses is not sent again."""
    store = open_store()
    driver = fake_driver["made"][0]
    driver.rows = [{"n": 1}]
    driver.read_errors = [errs.SessionExpired("member gone")]
    assert store.read("core/get_space", {"space": "demo"}) == [{"n": 1}]
    assert [call[0] for call in driver.calls] == ["run", "execute_query"]
    assert driver.calls[1][2] == neo4j.RoutingControl.READ

    driver.calls.clear()
    driver.read_errors = [
        errs.Neo4jError._hydrate_neo4j(
            code="Neo.ClientError.Statement.SyntaxError", message="Invalid input"
        )
    ]
    with pytest.raises(QueryError):
        store.read("core/get_space", {"space": "demo"})
    assert [call[0] for call in driver.calls] == ["run"]


def test_the_neo4j_variant_of_a_query_is_sent(fake_driver: dict[str, Any]) -> None:
    store = open_store()
    store.read("core/list_indexes")
    sent = fake_driver["made"][0].runs[0][0]
    assert sent == load_query("core/list_indexes", "neo4j")
    assert sent != load_query("core/list_indexes", "falkordb")


def test_credentials_in_the_uri_never_reach_the_driver_uri(fake_driver: dict[str, Any]) -> None:
    open_store("neo4j://neo4j:secret@db.example:7687", password="secret")
    driver = fake_driver["made"][0]
    assert "secret" not in driver.uri
    assert driver.auth == ("neo4j", "secret")


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (errs.AuthError("unauthorized"), AuthenticationFailed),
        (errs.ServiceUnavailable("connection refused"), EngineUnavailable),
        (errs.ConfigurationError("bad routing"), EngineUnavailable),
    ],
    ids=["auth", "unreachable", "configuration"],
)
def test_connect_errors_become_graphmem_errors_without_secrets(
    fake_driver: dict[str, Any], error: Exception, expected: type[Exception]
) -> None:
    fake_driver["connect_error"] = error
    with pytest.raises(expected) as caught:
        open_store("neo4j://neo4j:hunter2@db.example:7687", password="hunter2")
    assert "db.example" in str(caught.value)
    assert "hunter2" not in str(caught.value)


def test_a_rejected_query_names_the_query_and_the_code(fake_driver: dict[str, Any]) -> None:
    store = open_store()
    failure = errs.Neo4jError._hydrate_neo4j(
        code="Neo.ClientError.Statement.SyntaxError", message="Invalid input 'X'"
    )
    fake_driver["made"][0].query_error = failure
    with pytest.raises(QueryError) as caught:
        store.read("core/list_spaces")
    message = str(caught.value)
    assert "core/list_spaces" in message
    assert "Neo.ClientError.Statement.SyntaxError" in message


def test_a_connection_lost_mid_query_is_engine_unavailable(fake_driver: dict[str, Any]) -> None:
    store = open_store()
    fake_driver["made"][0].query_error = errs.SessionExpired("leader gone")
    with pytest.raises(EngineUnavailable):
        store.write("core/ensure_space", {"space": "demo", "now": 1})


def test_unstorable_text_is_refused_before_it_is_sent(fake_driver: dict[str, Any]) -> None:
    store = open_store()
    with pytest.raises(InputError) as caught:
        store.write("core/ensure_space", {"space": "demo\ud800", "now": 1})
    assert caught.value.field == "space"
    assert fake_driver["made"][0].runs == []


def test_close_closes_the_driver(fake_driver: dict[str, Any]) -> None:
    store = open_store()
    store.close()
    assert fake_driver["made"][0].closed


@pytest.mark.parametrize(
    ("agent", "search"),
    [
        ("Neo4j/5.26.30", False),
        ("Neo4j/2025.12.0", False),
        ("Neo4j/2026.01.4", False),
        ("Neo4j/2026.02.0", True),
        ("Neo4j/2026.08.1", True),
        ("Neo4j/2027.01.0", True),
        ("", False),
    ],
)
def test_the_server_version_chooses_the_vector_search_form(
    fake_driver: dict[str, Any], agent: str, search: bool
) -> None:
    """From 2026.02 (SEARCH generally available) the per-space index query is sent as Cypher
    25's SEARCH with the space filter inside the index; before it, as the oversampled call."""
    fake_driver["agent"] = agent
    store = open_store()
    assert store.vector_space_filter is search
    store.read("conversation/search_vector", {"probes": [], "space": "s", "candidates": 22})
    text = fake_driver["made"][0].runs[-1][0]
    if search:
        assert text.startswith("CYPHER 25\n")
        assert "SEARCH t IN (VECTOR INDEX turn_embedding FOR probe.embedding" in text
        assert "WHERE t.space = $space LIMIT $candidates) SCORE AS score" in text
        assert "queryNodes" not in text
    else:
        assert "db.index.vector.queryNodes('turn_embedding', $candidates" in text
        assert "SEARCH" not in text
