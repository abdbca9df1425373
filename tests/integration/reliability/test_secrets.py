"""Secrets and exposure: the embedded engine listens on a Unix socket in its home (TCP on
loopback only when asked) and refuses clients
without its password; the password file is 0600 (its folder 0700); no credential (engine
password, Neo4j password, LLM API key) appears in logs, `doctor` (text or --json), error
messages or settings' repr; a wrong password is one clear error."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
import redis
from typer.testing import CliRunner

from graphmem_neo4j.cli.main import app
from graphmem_neo4j.errors import AuthenticationFailed, LLMError
from graphmem_neo4j.llm import OpenAICompatibleLLM
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store.embedded import EmbeddedServer
from graphmem_neo4j.store.falkordb_store import FalkorDBStore
from tests.conftest import free_port
from tests.fakes.openai_server import FakeOpenAI

NEO4J_SECRET = "neo4j-s3cret-Pa55"
LLM_SECRET = "sk-test-0123456789abcdef"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _listening(port: int) -> set[str]:
    """Local addresses with a socket listening on `port` (from /proc/net/tcp and tcp6)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table, encoding="ascii") as f:
            for line in f.readlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                address, hex_port = local.split(":")
                if state == "0A" and int(hex_port, 16) == port:
                    found.add(address)
    return found


def test_the_embedded_engine_listens_on_loopback_only(private_server: EmbeddedServer) -> None:
    # 0100007F is 127.0.0.1 in /proc/net/tcp's byte order; 00000000 would be every interface
    assert _listening(private_server.port) == {"0100007F"}


def test_the_embedded_engine_requires_its_password(private_server: EmbeddedServer) -> None:
    anonymous = redis.Redis(host="127.0.0.1", port=private_server.port)
    with pytest.raises(redis.exceptions.AuthenticationError):
        anonymous.execute_command("GRAPH.LIST")
    wrong = redis.Redis(host="127.0.0.1", port=private_server.port, password="guess")
    with pytest.raises(redis.exceptions.AuthenticationError):
        wrong.ping()
    target = Settings(home=private_server.home, embedded_port=private_server.port).engine()
    with pytest.raises(AuthenticationFailed) as caught:
        FalkorDBStore(target, host="127.0.0.1", port=private_server.port, password="guess")
    assert "guess" not in str(caught.value)


def test_secret_files_are_private_and_the_log_holds_no_password(
    private_server: EmbeddedServer,
) -> None:
    password = private_server.password()
    assert stat.S_IMODE(os.stat(private_server.password_file).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(private_server.config_file).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(private_server.home).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(private_server.data_dir).st_mode) == 0o700
    assert len(password) >= 32
    assert password not in private_server.log_file.read_text(errors="replace")
    other = EmbeddedServer(private_server.home.parent / "another-home", free_port())
    assert other.password() != password  # generated per home, never a default


def test_doctor_and_json_outputs_hold_no_credential(
    private_server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch, fake_openai: FakeOpenAI
) -> None:
    monkeypatch.setenv("GRAPHMEM_HOME", str(private_server.home))
    monkeypatch.setenv("GRAPHMEM_EMBEDDED_PORT", str(private_server.port))
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "hash")
    monkeypatch.setenv("GRAPHMEM_LLM", "openai")
    monkeypatch.setenv("GRAPHMEM_LLM_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("GRAPHMEM_LLM_API_KEY", LLM_SECRET)
    secrets = [private_server.password(), LLM_SECRET, NEO4J_SECRET]
    outputs = []
    for args in (("doctor",), ("doctor", "--json"), ("init", "--json"), ("spaces", "--json")):
        code, out, err = run(*args)
        assert code == 0, (args, out, err)
        outputs.append(out + err)
    report = json.loads(run("doctor", "--json")[1])
    assert report["llm"]["mode"] == "openai" and report["healthy"] is True
    # a Neo4j URI with the password in it, unreachable: redacted everywhere
    uri = f"bolt://neo4j:{NEO4J_SECRET}@127.0.0.1:{free_port()}"
    for args in (("--uri", uri, "doctor", "--json"), ("--uri", uri, "stats")):
        code, out, err = run(*args)
        assert code in (1, 3), (out, err)
        outputs.append(out + err)
    monkeypatch.setenv("GRAPHMEM_PASSWORD", NEO4J_SECRET)
    outputs.append("".join(run("--uri", f"bolt://127.0.0.1:{free_port()}", "stats")[1:]))
    outputs.append(repr(Settings()) + str(Settings().model_dump()))
    for text in outputs:
        for secret in secrets:
            assert secret not in text


def test_llm_errors_do_not_repeat_the_api_key(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(401, 401)
    llm = OpenAICompatibleLLM(
        model="fake", base_url=fake_openai.base_url, api_key=LLM_SECRET, max_retries=1
    )
    from pydantic import BaseModel

    class Answer(BaseModel):
        ok: bool

    with pytest.raises(LLMError) as caught:
        llm.complete_json(system="s", user="u", schema=Answer)
    assert LLM_SECRET not in str(caught.value) and LLM_SECRET not in repr(caught.value)
    assert fake_openai.requests[0]["auth"] == f"Bearer {LLM_SECRET}"  # it was sent, to the API


def test_a_home_whose_password_does_not_match_its_server_is_one_clear_error(
    private_server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    stranger = tmp_path / "stranger-home"
    monkeypatch.setenv("GRAPHMEM_HOME", str(stranger))
    monkeypatch.setenv("GRAPHMEM_EMBEDDED_PORT", str(private_server.port))
    code, out, err = run("stats")
    assert code == 3 and len(err.strip().splitlines()) == 1, (out, err)
    assert "password" in err and "GRAPHMEM_EMBEDDED_PORT" in err
    assert private_server.password() not in out + err
    assert EmbeddedServer(stranger, private_server.port).password() not in out + err
