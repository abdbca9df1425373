"""A model server killed in the middle of a run: every write that depended on it is either
complete (the offline path took over) or absent (GRAPHMEM_LLM_FALLBACK=error), never half
made; a rerun with a live server completes the rest and duplicates nothing. On both engines."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from pydantic import BaseModel

from graphmem_neo4j.conversation.models import TurnInput
from graphmem_neo4j.embedder import HashEmbedder
from graphmem_neo4j.errors import LLMError
from graphmem_neo4j.llm import OpenAICompatibleLLM
from graphmem_neo4j.local_llm import MODEL_ALIAS, LocalLLM
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings

from .checks import shape, stored_problems
from .conftest import start_server

T = TypeVar("T", bound=BaseModel)
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


class KillsTheServer:
    """The real client, but the first request it sends is followed, `after` seconds later
    (while the model is still answering), by SIGKILL to the server."""

    def __init__(self, inner: OpenAICompatibleLLM, server: LocalLLM, after: float = 0.4) -> None:
        self.inner = inner
        self.model = inner.model
        self.usage = inner.usage
        self.server = server
        self.after = after
        self.killed = threading.Event()

    def complete_json(
        self, *, system: str, user: str, schema: type[T], json_schema: Any = None
    ) -> T:
        if not self.killed.is_set():
            self.killed.set()
            threading.Timer(self.after, self.server.kill).start()
        self.inner.usage = self.usage  # the meter may have swapped it
        return self.inner.complete_json(
            system=system, user=user, schema=schema, json_schema=json_schema
        )


@pytest.fixture
def doomed_server(tmp_path: Path) -> Iterator[LocalLLM]:
    """A server of the test's own, which the test kills."""
    server = start_server(tmp_path / "doomed")
    yield server
    server.stop()


def memory_with(settings: Settings, llm: Any, fallback: str) -> GraphMemory:
    settings = settings.model_copy(update={"llm": "openai", "llm_fallback": fallback})
    return GraphMemory(settings, embedder=HashEmbedder(64), llm=llm)


def killing_client(server: LocalLLM) -> KillsTheServer:
    client = OpenAICompatibleLLM(
        model=MODEL_ALIAS, base_url=server.base_url, api_key=None, timeout=60, max_retries=1
    )
    return KillsTheServer(client, server)


def turns(n: int) -> list[TurnInput]:
    import json

    rows = (EXAMPLES / "conversation.jsonl").read_text(encoding="utf-8").splitlines()[:n]
    out = []
    for i, line in enumerate(rows):
        row = json.loads(line)
        out.append(TurnInput(row.get("session", "s1"), f"t{i}", row["speaker"], row["text"]))
    return out


def test_chat_log_with_fallback_error_writes_nothing(
    engine_settings: Settings, space: str, doomed_server: LocalLLM
) -> None:
    client = killing_client(doomed_server)
    with memory_with(engine_settings, client, "error") as memory:
        with pytest.raises(LLMError):
            memory.add_chat_log(EXAMPLES / "chat_log.jsonl", space=space)
        assert client.killed.is_set() and not doomed_server.status().running
        # the space may exist (it is made first), but it holds nothing
        memory.ensure_space(space)
        assert not shape(memory, space)


def test_chat_log_with_fallback_offline_is_whole_and_idempotent(
    engine_settings: Settings, space: str, doomed_server: LocalLLM, model_server: LocalLLM
) -> None:
    client = killing_client(doomed_server)
    with memory_with(engine_settings, client, "offline") as memory:
        report = memory.add_chat_log(EXAMPLES / "chat_log.jsonl", space=space)
        assert report.facts_by.startswith("offline (LLM failed")
        assert stored_problems(memory, space) == []
        written = shape(memory, space)
    # the offline run of the same log writes the same graph
    offline = engine_settings.model_copy(update={"llm": "none"})
    with GraphMemory(offline, embedder=HashEmbedder(64)) as memory:
        memory.add_chat_log(EXAMPLES / "chat_log.jsonl", space=space)
        again = shape(memory, space)
    new = {k for k in again if k not in written and not k.startswith(("Query:", "InsightEdit:"))}
    assert new == set()


def test_ingest_killed_mid_run(
    engine_settings: Settings, space: str, doomed_server: LocalLLM
) -> None:
    sample = turns(16)  # two requests of 8 turns: the server dies during the first
    client = killing_client(doomed_server)
    with memory_with(engine_settings, client, "error") as memory:
        with pytest.raises(LLMError):
            memory.conversation.add_turns(sample, space=space, forget_every=0)
        memory.ensure_space(space)
        assert not [k for k in shape(memory, space) if k.startswith("Turn:")]
    client = killing_client(start_server(doomed_server.folder))
    try:
        with memory_with(engine_settings, client, "offline") as memory:
            report = memory.conversation.add_turns(sample, space=space, forget_every=0)
            assert report.turns_written == 16
            assert stored_problems(memory, space) == []
            written = shape(memory, space)
            assert sum(k.startswith("Turn:") for k in written) == 16
            again = memory.conversation.add_turns(sample, space=space, forget_every=0)
            assert again.turns_written == 0 and shape(memory, space) == written
    finally:
        client.server.stop()
