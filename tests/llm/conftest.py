"""The `llm` suite: every LLM path against the bundled small model (SmolLM2-135M-Instruct)
served by llama.cpp on 127.0.0.1, as `graphmem llm start` runs it. `make llm-test` installs the
runtime first; without it the suite fails (it is never skipped into a pass)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem_neo4j import local_llm
from graphmem_neo4j.local_llm import LocalLLM
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings
from tests.conftest import free_port

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).is_relative_to(HERE):
            item.add_marker(pytest.mark.llm)


def start_server(folder: Path) -> LocalLLM:
    reason = local_llm.unavailable_reason()
    if reason is not None:
        pytest.fail(f"the llm suite needs the local model runtime: {reason}")
    server = LocalLLM(folder, free_port(), threads=1)  # 2 cores shared with the engines
    server.start()
    return server


@pytest.fixture(scope="session")
def model_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalLLM]:
    """The session's model server."""
    server = start_server(tmp_path_factory.mktemp("llm-home"))
    yield server
    server.stop()


def llm_settings(base: Settings, server: LocalLLM, **more: object) -> Settings:
    env = server.status().env()
    return base.model_copy(
        update={
            "llm": "openai",
            "llm_base_url": env["GRAPHMEM_LLM_BASE_URL"],
            "llm_model": env["GRAPHMEM_LLM_MODEL"],
            **more,
        }
    )


@pytest.fixture
def llm_memory(
    engine_settings: Settings, hash_embedder: object, model_server: LocalLLM
) -> Iterator[GraphMemory]:
    """A GraphMemory on a fresh graph of each engine, with the local model as its LLM."""
    with GraphMemory(llm_settings(engine_settings, model_server), embedder=hash_embedder) as m:
        yield m


@pytest.fixture
def llm_env(
    monkeypatch: pytest.MonkeyPatch, falkordb_server: object, model_server: LocalLLM
) -> LocalLLM:
    """The CLI's environment: the session's embedded FalkorDB (a fresh graph), the hash
    embedder and the local model, as `eval "$(graphmem llm env)"` would set it."""
    monkeypatch.setenv("GRAPHMEM_HOME", str(falkordb_server.home))  # type: ignore[attr-defined]
    monkeypatch.setenv("GRAPHMEM_DATABASE", f"llm_{uuid.uuid4().hex[:10]}")
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "hash")
    for key, value in model_server.status().env().items():
        monkeypatch.setenv(key, value)
    return model_server
