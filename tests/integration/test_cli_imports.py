"""What a `graphmem` command loads, as `sys.modules` shows after it ran (not a timing): commands
that embed nothing load no model runtime and no numpy; commands that embed load numpy and the
tokenizer, never torch or sentence-transformers (the default model runs on our numpy code).
No command loads pydantic-settings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from graphmem_neo4j.store.embedded import EmbeddedServer

REPO = Path(__file__).resolve().parents[2]
MODEL_RUNTIMES = ("torch", "sentence_transformers", "transformers", "onnxruntime", "scipy")
NUMERIC = ("numpy", "tokenizers", "threadpoolctl")
# Not a model runtime, but 0.1 s of imports that every call paid until Settings read the
# environment itself.
SLOW_LIBRARIES = ("pydantic_settings",)

_PROBE = """
import json, sys
from graphmem_neo4j.cli.main import app
try:
    app(sys.argv[1:], prog_name="graphmem")
except SystemExit as done:
    code = done.code
else:
    code = 0
watched = sys.stdin.read().split()
print(json.dumps({"code": code, "loaded": [m for m in watched if m in sys.modules]}))
"""


@pytest.fixture(scope="module")
def env(falkordb_server: EmbeddedServer) -> dict[str, str]:
    """A graph holding the demo facts and turns, stored with the default embedder."""
    variables = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    variables |= {
        "GRAPHMEM_HOME": str(falkordb_server.home),
        "GRAPHMEM_DATABASE": f"imports_{uuid.uuid4().hex[:10]}",
    }
    for args in (
        ["facts", "add", str(REPO / "examples/facts.jsonl"), "--space", "demo"],
        ["ingest", str(REPO / "examples/conversation.jsonl"), "--space", "demo"],
    ):
        subprocess.run(
            [sys.executable, "-c", "from graphmem_neo4j.cli.main import run; run()", *args],
            env=variables,
            check=True,
            capture_output=True,
        )
    return variables


def loaded_after(env: dict[str, str], *args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        env=env,
        input=" ".join(MODEL_RUNTIMES + NUMERIC + SLOW_LIBRARIES),
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["code"] == 0, (args, done.stdout, done.stderr)
    return list(report["loaded"])


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["search", "--help"],
        ["facts", "current", "--subject", "Alice", "--space", "demo"],
        ["facts", "history", "--subject", "Alice", "--space", "demo", "--json"],
        ["stats", "--space", "demo"],
        ["spaces", "--json"],
        ["doctor", "--json"],
        ["server", "status"],
        ["insights", "list", "--space", "demo"],
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_commands_that_embed_nothing_load_no_model_runtime(
    env: dict[str, str], args: list[str]
) -> None:
    assert loaded_after(env, *args) == []


def test_export_loads_no_model_runtime(env: dict[str, str], tmp_path: Path) -> None:
    assert loaded_after(env, "export", str(tmp_path / "dump.jsonl"), "--space", "demo") == []


@pytest.mark.parametrize(
    "args",
    [
        ["search", "What did Maya adopt, and when?", "--space", "demo", "-k", "5"],
        ["facts", "ask", "Where does Alice live?", "--space", "demo"],
        ["recall", "Where does Maya live now?", "--space", "demo", "--budget", "200"],
    ],
    ids=lambda args: args[0] + " " + args[1][:12],
)
def test_commands_that_embed_load_numpy_but_no_torch(env: dict[str, str], args: list[str]) -> None:
    loaded = loaded_after(env, *args)
    assert "numpy" in loaded and "tokenizers" in loaded
    assert not set(loaded) & set(MODEL_RUNTIMES + SLOW_LIBRARIES)
