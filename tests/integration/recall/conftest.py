"""Helpers for the recall integration tests: a space holding all four layers, filled only
through the Python API from the shipped examples, and CLI plumbing."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphmem_neo4j.cli.main import app
from graphmem_neo4j.conversation.readers import read_jsonl
from graphmem_neo4j.embedder import HashEmbedder
from graphmem_neo4j.experience.parsing import parse_file
from graphmem_neo4j.facts.parsing import read_facts_file
from graphmem_neo4j.insights.parsing import read_tasks
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import dump_records
from graphmem_neo4j.store.embedded import EmbeddedServer

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def fill(memory: GraphMemory, space: str) -> None:
    """Every layer of `space` from the examples, through GraphMemory's API methods."""
    memory.add_turns(read_jsonl(EXAMPLES / "conversation.jsonl"), space=space)
    memory.add_facts([fact for _, fact in read_facts_file(EXAMPLES / "facts.jsonl")], space=space)
    memory.add_facts(
        [fact for _, fact in read_facts_file(EXAMPLES / "facts_updates.jsonl")], space=space
    )
    for task in read_tasks(EXAMPLES / "tasks.jsonl").tasks:
        memory.record_task(task, space=space, learn=True)
    for kind, name in (("expert", "expert.jsonl"), ("exploration", "exploration.jsonl")):
        for run in parse_file(EXAMPLES / "experience" / name, kind=kind):  # type: ignore[arg-type]
            memory.add_trajectory(run, space=space)


@pytest.fixture
def filled(memory: GraphMemory, space: str) -> GraphMemory:
    fill(memory, space)
    return memory


def nodes(memory: GraphMemory, space: str) -> dict[tuple[str, str], dict[str, Any]]:
    """(label, id) → properties of every node of the space, from the export records."""
    return {
        (r["label"], r["id"]): r["props"]
        for r in dump_records(memory, space)
        if r["kind"] == "node"
    }


def relationships(memory: GraphMemory, space: str) -> set[tuple[str, str, str]]:
    return {
        (r["type"], r["source"], r["target"])
        for r in dump_records(memory, space)
        if r["kind"] == "rel"
    }


@pytest.fixture
def cli_env(falkordb_server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """GRAPHMEM_* for a fresh graph on the test server with the hash embedder (also what a
    subprocess needs)."""
    env = {
        "GRAPHMEM_HOME": str(falkordb_server.home),
        "GRAPHMEM_DATABASE": f"recall_{uuid.uuid4().hex[:10]}",
        "GRAPHMEM_EMBEDDER": "hash",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


class Cli:
    def __init__(self) -> None:
        self.runner = CliRunner()

    def run(self, *args: str, code: int = 0) -> str:
        result = self.runner.invoke(app, list(args))
        assert result.exit_code == code, result.output
        return result.output

    def json(self, *args: str) -> Any:
        result = self.runner.invoke(app, [*args, "--json"])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)


@pytest.fixture
def cli(cli_env: dict[str, str]) -> Cli:
    return Cli()


@pytest.fixture
def hash_embedder() -> HashEmbedder:
    """256 dimensions (the production hash embedder's size) instead of the suite's 64: at 64,
    hash collisions give unrelated texts cosines up to ~0.3, which recall would read as a weak
    match."""
    return HashEmbedder(256)
