"""`graphmem keys create|list|revoke` through Typer's runner: the key is printed once, the
graph keeps only its sha256, and `--json` output is scriptable."""

from __future__ import annotations

import hashlib
import json
import uuid

import pytest
from typer.testing import CliRunner

from graphmem_neo4j.cli.main import app
from graphmem_neo4j.keys import KeyRing
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store.embedded import EmbeddedServer


@pytest.fixture
def cli_env(falkordb_server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch) -> Settings:
    database = f"keys_{uuid.uuid4().hex[:10]}"
    for key, value in {
        "GRAPHMEM_HOME": str(falkordb_server.home),
        "GRAPHMEM_DATABASE": database,
        "GRAPHMEM_EMBEDDER": "hash",
    }.items():
        monkeypatch.setenv(key, value)
    return Settings(home=falkordb_server.home, database=database, embedder="hash")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_create_list_revoke(cli_env: Settings) -> None:
    code, out, err = run("keys", "create", "--space", "A", "--space", "B", "--read-only")
    assert code == 0, err
    key = out.strip()
    assert key.startswith("gmk_") and "read-only" in err and "A, B" in err
    code, out, _ = run("keys", "create", "--space", "C", "--json")
    created = json.loads(out)
    assert code == 0 and created["spaces"] == ["C"] and created["read_only"] is False

    code, out, _ = run("keys", "list", "--json")
    listed = {k["id"]: k for k in json.loads(out)}
    assert code == 0 and set(listed) == {key.split("_")[1], created["id"]}
    assert key not in out and created["key"] not in out  # never the key itself
    first = listed[key.split("_")[1]]
    assert first["spaces"] == ["A", "B"] and first["read_only"] and not first["revoked"]
    assert first["last_used_at"] is None

    with GraphMemory(cli_env) as memory:  # the graph holds the hash, not the key
        rows = memory.store.read("keys/by_hash", {"hash": hashlib.sha256(key.encode()).hexdigest()})
        assert [r["id"] for r in rows] == [first["id"]]
        assert KeyRing(memory.store).check(key) is not None

    code, out, _ = run("keys", "revoke", first["id"], "--json")
    assert code == 0 and json.loads(out)["revoked"] is True
    code, out, _ = run("keys", "list")
    assert code == 0 and "revoked" in out and "live" in out
    with GraphMemory(cli_env) as memory:
        assert KeyRing(memory.store).check(key) is None


def test_clear_errors(cli_env: Settings) -> None:
    code, _, err = run("keys", "revoke", "nope")
    assert code == 5 and "no key with id 'nope'" in err
    code, _, err = run("keys", "create", "--space", "bad name")
    assert code == 6 and "invalid space name" in err
    code, _, err = run("keys", "create")
    assert code != 0 and "--space" in err
