import pytest

from graphmem_neo4j.errors import ConfigError
from graphmem_neo4j.settings import Settings, parse_uri, redact_uri


def test_unset_uri_selects_embedded_falkordb() -> None:
    target = parse_uri(None)
    assert (target.engine, target.embedded) == ("falkordb", True)
    assert target.redacted() == "embedded"


@pytest.mark.parametrize(
    ("uri", "engine", "host", "port"),
    [
        ("falkordb://db.local:6380", "falkordb", "db.local", 6380),
        ("falkordb://db.local", "falkordb", "db.local", 6379),
        ("bolt://localhost:7687", "neo4j", "localhost", 7687),
        ("neo4j://cluster.example:7687", "neo4j", "cluster.example", 7687),
        ("neo4j+s://abc.databases.neo4j.io", "neo4j", "abc.databases.neo4j.io", None),
    ],
)
def test_uri_schemes_pick_the_engine(uri: str, engine: str, host: str, port: int | None) -> None:
    target = parse_uri(uri)
    assert (target.engine, target.embedded, target.host, target.port) == (engine, False, host, port)


@pytest.mark.parametrize("uri", ["http://x", "postgres://a/b", "neo4j://", "falkordb://:99999"])
def test_bad_uris_are_config_errors(uri: str) -> None:
    with pytest.raises(ConfigError, match="GRAPHMEM_URI"):
        parse_uri(uri)


def test_redaction_drops_credentials() -> None:
    assert redact_uri("neo4j://neo4j:s3cret@host:7687") == "neo4j://host:7687"
    assert "s3cret" not in parse_uri("falkordb://:s3cret@host:1").redacted()


def test_settings_read_the_environment_when_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_URI", "bolt://h:1")
    monkeypatch.setenv("GRAPHMEM_BATCH_SIZE", "77")
    monkeypatch.setenv("GRAPHMEM_PASSWORD", "pw")
    built = Settings()
    assert built.engine().engine == "neo4j"
    assert built.batch_size == 77
    assert "pw" not in repr(built)


def test_a_value_passed_in_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_SPACE", "from-env")
    monkeypatch.setenv("graphmem_llm_timeout", "12.5")
    built = Settings(space="passed")
    assert (built.space, built.llm_timeout) == ("passed", 12.5)


def test_an_empty_port_means_none_and_a_bad_value_names_its_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GRAPHMEM_EMBEDDED_PORT", " ")
    assert Settings().embedded_port is None
    monkeypatch.setenv("GRAPHMEM_EMBEDDED_PORT", "70000")
    with pytest.raises(ValueError, match="embedded_port"):
        Settings()
