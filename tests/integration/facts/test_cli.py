"""`graphmem facts ...` through Typer's runner: JSON output, help, errors and exit codes."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphmem_neo4j.cli.main import app
from graphmem_neo4j.store.embedded import EmbeddedServer

REPO = Path(__file__).resolve().parents[3]
FACTS = str(REPO / "examples" / "facts.jsonl")
UPDATES = str(REPO / "examples" / "facts_updates.jsonl")


@pytest.fixture
def cli_env(falkordb_server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    env = {
        "GRAPHMEM_HOME": str(falkordb_server.home),
        "GRAPHMEM_DATABASE": f"cli_{uuid.uuid4().hex[:10]}",
        "GRAPHMEM_EMBEDDER": "hash",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_add_then_read_back_as_json(cli_env: None) -> None:
    code, out, _ = run("facts", "add", FACTS, "--space", "demo", "--json")
    assert code == 0 and json.loads(out)["counts"]["created"] == 7
    code, out, _ = run("facts", "add", UPDATES, "--space", "demo", "--json")
    report = json.loads(out)
    assert code == 0
    assert report["units"][0]["superseded"] == ["alice-home-2019"]
    assert report["units"][0]["outdated"] == ["alice-club"]
    assert report["units"][1]["action"] == "pending"
    code, out, _ = run("facts", "current", "--subject", "Alice", "--space", "demo", "--json")
    units = json.loads(out)["units"]
    assert code == 0
    assert {u["id"] for u in units} == {
        "alice-home-2023",
        "alice-job",
        "alice-drink",
        "alice-drink-evening-2024",
    }
    assert set(units[0]) == {
        "id",
        "subject",
        "relation",
        "object",
        "category",
        "context",
        "status",
        "valid_from",
        "valid_to",
        "confidence",
    }
    code, out, _ = run(
        "facts", "current", "--subject", "alice", "--relation", "lives_in",
        "--as-of", "2020-01-01", "--space", "demo", "--json",
    )  # fmt: skip
    assert [u["object"] for u in json.loads(out)["units"]] == ["Paris"]


def test_ask_history_and_path(cli_env: None) -> None:
    run("facts", "add", FACTS, "--space", "demo")
    run("facts", "add", UPDATES, "--space", "demo")
    code, out, _ = run("facts", "ask", "Where does Alice live?", "--space", "demo", "--json")
    result = json.loads(out)
    assert code == 0 and result["answer"] == "Lisbon"
    assert [u["id"] for u in result["units"]] == ["alice-home-2023"]
    code, out, _ = run("facts", "ask", "Where does Alice live?", "--space", "demo")
    assert code == 0 and out.startswith("answer: Lisbon")
    code, out, _ = run("facts", "history", "--subject", "Bob", "--space", "demo", "--json")
    statuses = {u["id"]: u["status"] for u in json.loads(out)["units"]}
    assert statuses["bob-employer-rumour"] == "pending"
    code, out, _ = run(
        "facts", "history", "--subject", "Alice", "-r", "lives_in", "--space", "demo"
    )
    assert code == 0 and "superseded by alice-home-2023" in out
    code, out, _ = run("facts", "path", "alice-club", "--space", "demo", "--json")
    chain = json.loads(out)
    assert chain["unit"]["status"] == "outdated"
    assert chain["edges"] == [{"from": "alice-home-2019", "to": "alice-club"}]
    code, out, _ = run("facts", "path", "alice-club", "--space", "demo")
    assert code == 0 and "alice-home-2019 -> alice-club" in out


def test_add_text_offline(cli_env: None) -> None:
    code, out, _ = run(
        "facts", "add-text", "Alice lives in Paris since 2019. Alice moved to Rome in 2022.",
        "--space", "t", "--json",
    )  # fmt: skip
    report = json.loads(out)
    assert code == 0 and report["counts"]["facts"] == 2
    assert report["units"][1]["superseded"] == [report["units"][0]["id"]]
    code, _, err = run("facts", "add-text", "   ", "--space", "t")
    assert code == 6 and "empty text" in err
    code, _, err = run("facts", "add-text", "hello there", "--space", "t")
    assert code == 6 and "found no fact" in err


def test_errors_are_one_line_with_an_exit_code(cli_env: None, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"subject": "A", "relation": "r", "object": "o"}\n')
    code, _, err = run("facts", "add", str(bad), "--space", "x")
    assert code == 6
    assert err.strip() == f"error: {bad}:1, field 'category': missing required field"
    code, _, err = run("facts", "add", str(tmp_path / "missing.jsonl"))
    assert code == 6 and "no such file" in err
    code, _, err = run("facts", "current", "--subject", "A", "--space", "nobody")
    assert code == 5 and "unknown space" in err
    run("facts", "add", FACTS, "--space", "demo")
    code, _, err = run("facts", "path", "nope", "--space", "demo")
    assert code == 5 and "no unit 'nope'" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("command", ["add", "add-text", "ask", "current", "history", "path"])
def test_every_command_explains_itself(command: str) -> None:
    code, out, _ = run("facts", command, "--help")
    assert code == 0 and "--json" in out and "--space" in out
