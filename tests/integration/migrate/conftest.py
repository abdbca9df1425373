"""Fixtures of the migration tests: the other projects' virtual environments (built by
`make migrate-venvs`), a source Neo4j emptied for them, and a fresh graphmem target."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphmem_neo4j.embedder import HashEmbedder
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.migrate.source import SourceConfig
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store.embedded import EmbeddedServer
from tests.conftest import reset_neo4j, skip_for_want_of

HERE = Path(__file__).resolve().parent
VENVS = Path(
    os.environ.get(
        "GRAPHMEM_TEST_MIGRATE_VENVS", Path.home() / ".cache" / "graphmem" / "migrate-venvs"
    )
)
MEM0_VENV = VENVS / "mem0-1.0.11"
GRAPHITI_VENV = VENVS / "graphiti-core-0.31.2"


def venv_python(venv: Path) -> Path:
    python = venv / "bin" / "python"
    if not (venv / ".installed").is_file() or not python.exists():
        skip_for_want_of(f"no {venv.name} virtual environment under {VENVS} (make migrate-venvs)")
    return python


def run_driver(venv: Path, driver: str, script: dict[str, Any], tmp: Path) -> dict[str, Any]:
    """Run another project's code on `script`; returns what the driver printed (JSON)."""
    path = tmp / f"{driver}-script.json"
    path.write_text(json.dumps(script))
    done = subprocess.run(
        [str(venv_python(venv)), str(HERE / f"{driver}.py"), str(path)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "MEM0_TELEMETRY": "False", "GRAPHITI_TELEMETRY_ENABLED": "false"},
    )
    if done.returncode != 0:
        raise AssertionError(f"{driver} failed:\n{done.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def source_neo4j(neo4j_uri: tuple[str, str, str]) -> SourceConfig:
    """The session's Neo4j, emptied: the module's source graph is written into it."""
    uri, user, password = neo4j_uri
    reset_neo4j(uri, user, password)
    return SourceConfig(uri, user, password)


@pytest.fixture
def target(falkordb_server: EmbeddedServer) -> Iterator[GraphMemory]:
    """graphmem on a fresh embedded FalkorDB graph, with the fast hash embedder."""
    settings = Settings(home=falkordb_server.home, database=f"test_{uuid.uuid4().hex[:12]}")
    with GraphMemory(settings, embedder=HashEmbedder()) as memory:
        yield memory
