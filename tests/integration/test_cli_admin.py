"""The admin commands through Typer's runner: doctor, init, stats, spaces, export/import, and
one clear line (never a traceback) for user errors."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphmem_neo4j.cli.main import app
from graphmem_neo4j.store.embedded import EmbeddedServer
from tests.conftest import free_port


@pytest.fixture
def cli_env(falkordb_server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    env = {
        "GRAPHMEM_HOME": str(falkordb_server.home),
        "GRAPHMEM_DATABASE": f"cli_{uuid.uuid4().hex[:10]}",
        "GRAPHMEM_EMBEDDER": "hash",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_doctor_reports_a_healthy_embedded_engine(cli_env: dict[str, str]) -> None:
    code, out, _ = run("init", "--json")
    assert code == 0 and json.loads(out)["embedding_dimension"] == 256
    code, out, _ = run("doctor", "--json")
    report = json.loads(out)
    assert code == 0, out
    assert report["healthy"] is True and report["problems"] == []
    assert report["engine"] == "falkordb" and report["uri"] == "embedded"
    assert report["embedded_server"]["running"] is True
    assert report["schema"]["pending"] == [] and report["schema"]["embedding_model"] == "hash-256"
    password = Path(report["embedded_server"]["password_file"]).read_text().strip()
    assert password not in out


def test_init_is_idempotent(cli_env: dict[str, str]) -> None:
    assert run("init")[0] == 0
    code, out, _ = run("init")
    assert code == 0 and "up to date" in out


def test_unknown_space_is_one_clear_line(cli_env: dict[str, str]) -> None:
    code, out, err = run("stats", "--space", "nobody-here")
    assert code == 5
    assert err.strip().splitlines() == ["error: unknown space 'nobody-here'; no space exists yet"]
    assert "Traceback" not in out + err


def test_invalid_space_name(cli_env: dict[str, str]) -> None:
    code, _, err = run("stats", "--space", "x}) DETACH DELETE n //")
    assert code == 6 and "invalid space name" in err and len(err.strip().splitlines()) == 1


def test_wrong_password_exits_non_zero_with_one_line(tmp_path: Path) -> None:
    server = EmbeddedServer(tmp_path / "tcp-home", free_port())  # an external FalkorDB: TCP
    server.ensure_running()
    try:
        uri = f"falkordb://:not-the-password@127.0.0.1:{server.port}"
        code, out, err = run("--uri", uri, "stats")
    finally:
        server.stop()
    assert code == 3
    assert len(err.strip().splitlines()) == 1 and "refused the password" in err
    assert "not-the-password" not in out + err


@pytest.mark.parametrize(
    ("uri", "code", "message"),
    [
        ("falkordb://127.0.0.1:{port}", 3, "cannot reach FalkorDB"),
        ("bolt://127.0.0.1:{port}", 3, "cannot reach Neo4j"),
        ("neo4j://127.0.0.1:{port}", 3, "cannot reach Neo4j"),
        ("http://localhost:{port}", 2, "unknown scheme"),
    ],
)
def test_unreachable_or_bad_uri(uri: str, code: int, message: str) -> None:
    exit_code, out, err = run("--uri", uri.format(port=free_port()), "spaces")
    assert exit_code == code
    assert message in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in out + err


def test_doctor_reports_an_unreachable_engine_as_unhealthy() -> None:
    code, out, _ = run("--uri", f"bolt://127.0.0.1:{free_port()}", "doctor", "--json")
    report = json.loads(out)
    assert code == 1 and report["healthy"] is False
    assert any("cannot reach Neo4j" in p for p in report["problems"])


def test_server_commands_refuse_an_external_uri() -> None:
    code, _, err = run("--uri", "bolt://localhost:7687", "server", "status")
    assert code == 2 and "no embedded server" in err


def test_export_import_of_a_space(cli_env: dict[str, str], tmp_path: Path) -> None:
    from graphmem_neo4j.memory import GraphMemory

    with GraphMemory() as memory:
        memory.ensure_space("source")
    dump = tmp_path / "source.jsonl"
    code, out, _ = run("export", str(dump), "--space", "source", "--json")
    assert code == 0
    lines = [json.loads(line) for line in dump.read_text().splitlines()]
    assert lines[0]["kind"] == "header" and lines[0]["space"] == "source"
    assert lines[-1]["kind"] == "footer" and lines[-1]["sha256"] == json.loads(out)["sha256"]
    code, out, _ = run("import", str(dump), "--space", "copy", "--json")
    assert code == 0 and json.loads(out)["space"] == "copy"
    code, out, _ = run("spaces", "--json")
    assert {"source", "copy"} <= set(json.loads(out))


def test_import_rejects_a_malformed_dump_and_writes_nothing(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.jsonl"
    header = {"kind": "header", "format": "graphmem-export", "version": 1, "space": "x"}
    bad.write_text(json.dumps(header) + "\n" + '{"kind": "node", "label": "Hacker"\n')
    code, _, err = run("import", str(bad), "--space", "victim")
    assert code == 6 and f"{bad}:2" in err and "malformed JSON" in err
    bad.write_text(
        json.dumps(header)
        + "\n"
        + json.dumps({"kind": "node", "label": "Turn`) DETACH DELETE n //", "id": "1", "props": {}})
        + "\n"
    )
    code, _, err = run("import", str(bad), "--space", "victim")
    assert code == 6 and "unknown node label" in err and "field 'label'" in err
    assert run("stats", "--space", "victim")[0] == 5  # the space was never created


def test_reembed_through_the_cli(cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "conversation.jsonl"
    assert run("ingest", str(example), "--space", "talk")[0] == 0
    code, out, _ = run("reembed", "--space", "talk", "--json")
    report = json.loads(out)
    assert code == 0 and (report["turns"], report["entities"]) == (0, 0)
    assert report["graph_model"] == "hash-256" and report["spaces_left"] == {}
    # Another model: searching is refused with the fix named; reembed refuses a dimension
    # the vector indexes were not built for, and the graph keeps its model.
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "numpy")
    code, out, err = run("search", "adopt", "--space", "talk", "--mode", "vector")
    assert code == 4 and "graphmem reembed --space" in err and "Traceback" not in out + err
    code, out, err = run("reembed", "--space", "talk")
    assert code == 4 and "keeps the dimension" in err
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "hash")
    code, out, _ = run("doctor", "--json")
    assert json.loads(out)["schema"]["embedding_model"] == "hash-256"
