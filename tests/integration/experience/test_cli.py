"""`graphmem experience add | diff | retrieve` through Typer's runner on the embedded FalkorDB."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphmem_neo4j.cli.main import app
from graphmem_neo4j.store.embedded import EmbeddedServer

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "experience"


@pytest.fixture
def cli_env(falkordb_server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_HOME", str(falkordb_server.home))
    monkeypatch.setenv("GRAPHMEM_DATABASE", f"cli_{uuid.uuid4().hex[:10]}")
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "hash")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["experience", *args])
    return result.exit_code, result.stdout, result.stderr


def test_add_twice_then_retrieve(cli_env: None) -> None:
    code, out, err = run("add", str(EXAMPLES / "expert.jsonl"), "--space", "demo", "--json")
    assert code == 0, err
    first = json.loads(out)
    assert (first["added"], first["tasks"], first["space"]) == (5, 5, "demo")
    code, out, _ = run(
        "add", str(EXAMPLES / "exploration.jsonl"), "--kind", "exploration", "--space", "demo"
    )
    assert code == 0 and "2 trajectories added" in out and "2 exploration/expert pairs" in out
    code, out, _ = run("add", str(EXAMPLES / "expert.jsonl"), "--space", "demo", "--json")
    assert json.loads(out)["unchanged"] == 5
    code, out, _ = run("retrieve", "put a hot egg in fridge", "-k", "1", "-t", "2", "-s", "demo")
    assert code == 0
    assert out.splitlines()[1].startswith("1. put a hot apple in fridge (similarity")
    assert 'do "go to microwave 1" instead of "go to stoveburner 1"' in out
    code, out, _ = run("retrieve", "put a hot egg in fridge", "-k", "2", "-s", "demo", "--json")
    data = json.loads(out)
    assert data["tasks"][0]["text"] == "put a hot apple in fridge"
    assert data["guidance"].startswith("Experience from tasks similar to")


def test_alfworld_format_and_diff_by_stored_id(cli_env: None) -> None:
    code, _, err = run(
        "add", str(EXAMPLES / "alfworld_expert.jsonl"), "--format", "alfworld", "-s", "alf"
    )
    assert code == 0, err
    run("add", str(EXAMPLES / "exploration.jsonl"), "--kind", "exploration", "-s", "alf")
    code, out, _ = run("diff", "hot-apple-1", str(EXAMPLES / "one_expert.jsonl"), "-s", "alf")
    assert code == 0 and out.startswith("matching: exact, edit cost")
    code, out, err = run("diff", "nope", "alfworld/hot-potato-1", "-s", "alf")
    assert code == 5 and "no exploration trajectory 'nope'" in err


def test_diff_of_two_files_needs_no_database(tmp_path: Path) -> None:
    code, out, _ = run(
        "diff",
        str(EXAMPLES / "one_exploration.jsonl"),
        str(EXAMPLES / "one_expert.jsonl"),
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert set(data) >= {"common_edges", "edit_path"}
    relabels = [op for op in data["edit_path"] if op["op"] == "relabel_node"]
    assert relabels == [
        {
            "op": "relabel_node",
            "action": "go to stoveburner 1",
            "new_action": "go to microwave 1",
            "observation": "you pick up the apple 1 from the countertop 2.",
        },
        {
            "op": "relabel_node",
            "action": "heat apple 1 with stoveburner 1",
            "new_action": "heat apple 1 with microwave 1",
            "observation": "on the stoveburner 1, you see nothing.",
        },
    ]
    assert all({"source", "target", "observation"} == set(e) for e in data["common_edges"])
    assert not (tmp_path / "graphmem-home").exists()


def test_user_errors_are_one_line_and_store_nothing(cli_env: None, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "task": "t", "reward": "1", "steps": []}\n')
    code, out, err = run("add", str(bad), "-s", "bad")
    assert code == 6
    assert err.strip() == f"error: {bad}:1, field 'reward': expected a number, got str"
    assert run("retrieve", "t", "-s", "bad")[0] == 5
    code, _, err = run("add", str(EXAMPLES / "expert.jsonl"), "--kind", "teacher")
    assert code == 6 and "unknown kind 'teacher'" in err
    code, _, err = run("add", str(tmp_path / "missing.jsonl"))
    assert code == 6 and "no such file" in err
    code, _, err = run("diff", str(EXAMPLES / "expert.jsonl"), str(EXAMPLES / "one_expert.jsonl"))
    assert code == 6 and "holds 5 trajectories" in err
    assert "Traceback" not in out + err


def test_help_explains_the_commands() -> None:
    result = CliRunner().invoke(app, ["experience", "--help"])
    assert result.exit_code == 0
    for command in ("add", "diff", "retrieve"):
        assert command in result.stdout
    result = CliRunner().invoke(app, ["experience", "diff", "--help"])
    assert "edit path" in result.stdout
