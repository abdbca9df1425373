"""The user guide (docs/guide.md) with the local model as the LLM (GRAPHMEM_LLM=openai for every
line): turn extraction during `ingest` and the batch script, the insight controller of `tasks
record --feedback`, the summaries of `experience add`, and `chat-log`. Every line must exit 0
with no traceback, whatever the model answers; then every stored answer validates, on both
engines the guide used, and `stats` shows the model's tokens.

The lines that start and stop a model server of their own (`make llm`, `eval "$(graphmem llm
env)"`, `graphmem llm stop`) are left out: the suite's server plays that part, and
`tests/unit/test_local_llm.py` and the other llm tests cover those commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem_neo4j.local_llm import LocalLLM
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store import local_neo4j
from graphmem_neo4j.store.embedded import EmbeddedServer
from tests.readme_guide import STEPS, clone_layout, graphmem_cli, guide_env, run_steps

from .checks import stored_problems

OWN_SERVER = ("make llm", 'eval "$(graphmem llm env)"', "graphmem llm stop")
STOP_NEO4J = "graphmem neo4j stop"


def guide_with_the_model() -> list:  # type: ignore[type-arg]
    steps = [
        s
        for s in STEPS
        if s.needs in (None, "the local model") and not s.text.startswith(OWN_SERVER)
    ]
    assert steps[-1].text == STOP_NEO4J, "the guide no longer ends by stopping Neo4j"
    return steps


def test_the_model_lines_left_out_are_only_the_server_commands() -> None:
    model_lines = [s.text for s in STEPS if s.needs == "the local model"]
    kept = [s for s in guide_with_the_model() if s.needs == "the local model"]
    assert kept, "the guide runs no command with the model"
    assert len(model_lines) - len(kept) == len(OWN_SERVER)


def stats(env: dict[str, str], space: str) -> dict:  # type: ignore[type-arg]
    done = graphmem_cli(env, "stats", "--space", space, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def problems(env: dict[str, str], spaces: tuple[str, ...]) -> dict[str, list[str]]:
    """What `stored_problems` finds in each space of the engine `env` points at."""
    settings = Settings(
        home=env["GRAPHMEM_HOME"],
        uri=env.get("GRAPHMEM_URI") or None,
        password=env.get("GRAPHMEM_PASSWORD") or None,
        database=None,
        embedder="hash",
        llm="none",
    )
    with GraphMemory(settings) as memory:
        return {space: stored_problems(memory, space) for space in spaces}


def test_the_guide_runs_with_the_model(model_server: LocalLLM, tmp_path: Path) -> None:
    reason = local_neo4j.unavailable_reason()
    if reason is not None:
        pytest.fail(f"the guide starts a local Neo4j: {reason}")
    workdir = clone_layout(tmp_path)
    home = tmp_path / "home"  # short: the embedded server's socket path must fit 107 bytes
    env = guide_env(home, **model_server.status().env())
    assert env["GRAPHMEM_LLM"] == "openai"
    embedded = {k: v for k, v in env.items() if k not in ("GRAPHMEM_URI", "GRAPHMEM_PASSWORD")}
    steps = guide_with_the_model()
    try:
        ran, session = run_steps(steps[:-1], env, workdir, timeout=1800)
        assert ran == len(steps) - 1
        on_embedded = problems(embedded, ("demo", "chat"))
        on_neo4j = problems(session, ("demo", "team"))
        assert on_embedded == {"demo": [], "chat": []}
        assert on_neo4j == {"demo": [], "team": []}
        for space, layer in (("demo", "conversation"), ("chat", "facts")):
            llm = stats(embedded, space)["tokens"]["llm"]
            assert llm["calls"] > 0 and llm["prompt_tokens"] > 0, (space, llm)
            assert llm["by_layer"].get(layer, 0) > 0, (space, llm)
        assert stats(session, "team")["tokens"]["llm"]["calls"] > 0  # the batch script's turns
        ran, _ = run_steps(steps[-1:], session, workdir)
        assert ran == 1
    finally:
        EmbeddedServer(home).stop()
        graphmem_cli(env, "neo4j", "stop")
