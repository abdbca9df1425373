"""The batch recipe (examples/batch_ingest.py) against the embedded engine: parallel workers,
resumption from the done list, a bad file rejected whole while the others go in."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store.embedded import EmbeddedServer
from tests.fakes.openai_server import FakeOpenAI
from tests.unit.browser.recipe import load_batch_recipe

BATCH = Path(__file__).resolve().parents[3] / "examples" / "batch"


@pytest.fixture
def batch() -> ModuleType:
    return load_batch_recipe()


@pytest.fixture
def settings(falkordb_server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """GRAPHMEM_* for the recipe and its spawned workers: a fresh graph, the hash embedder."""
    env = {
        "GRAPHMEM_HOME": str(falkordb_server.home),
        "GRAPHMEM_DATABASE": f"batch_{uuid.uuid4().hex[:10]}",
        "GRAPHMEM_EMBEDDER": "hash",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return Settings()


def counts(settings: Settings, space: str) -> dict[str, int]:
    with GraphMemory(settings) as memory:
        return dict(memory.stats(space)["nodes"])


def ingest(batch: ModuleType, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    code = batch.main([*args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_conversations_in_parallel_then_a_rerun_skips_them(
    batch: ModuleType, settings: Settings, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = (str(BATCH / "conversations"), "--space", "team", "--workers", "2")
    done = ("--done", str(tmp_path / "done.jsonl"))
    code, summary = ingest(batch, capsys, *args, *done)
    assert code == 0, summary
    assert (summary["files"], summary["done"], summary["skipped"]) == (6, 6, 0)
    assert (summary["items"], summary["written"], summary["workers"]) == (60, 60, 2)
    stored = counts(settings, "team")
    assert stored["Turn"] == 60 and stored["Session"] == 6
    assert len((tmp_path / "done.jsonl").read_text().splitlines()) == 6

    code, again = ingest(batch, capsys, *args, *done)
    assert code == 0
    assert (again["done"], again["skipped"], again["written"]) == (0, 6, 0)
    assert counts(settings, "team") == stored


def test_a_bad_file_is_rejected_whole_and_the_rest_goes_in(
    batch: ModuleType, settings: Settings, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "in"
    shutil.copytree(BATCH / "conversations", folder)
    good = {"session": "late", "turn_id": "late-1", "speaker": "Ana", "text": "I am fine."}
    bad = folder / "zz-late.jsonl"
    bad.write_text(
        json.dumps(good) + "\n" + json.dumps({**good, "turn_id": "late-2", "text": 7}) + "\n"
    )
    args = (str(folder), "--space", "team", "--done", str(tmp_path / "done.jsonl"))
    code, summary = ingest(batch, capsys, *args)
    assert code == batch.EXIT_INPUT
    assert summary["done"] == 6
    (rejected,) = summary["rejected"]
    assert rejected["name"] == "zz-late.jsonl"
    assert f"{bad}:2" in rejected["error"] and "field 'text'" in rejected["error"]
    assert counts(settings, "team")["Session"] == 6  # not even line 1 of the bad file

    bad.write_text(json.dumps(good) + "\n")
    code, summary = ingest(batch, capsys, *args)
    assert code == 0
    assert (summary["done"], summary["skipped"], summary["items"]) == (1, 6, 1)
    assert counts(settings, "team")["Session"] == 7


def test_a_file_written_but_not_yet_recorded_is_stored_once(
    batch: ModuleType, settings: Settings, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    done = tmp_path / "done.jsonl"
    args = (str(BATCH / "conversations"), "--space", "crash", "--workers", "2", "--done", str(done))
    assert ingest(batch, capsys, *args)[0] == 0
    stored = counts(settings, "crash")
    # a crash between a file's last write and its done-list line
    lines = done.read_text().splitlines()
    done.write_text("\n".join(lines[:-1]) + "\n")
    code, summary = ingest(batch, capsys, *args)
    assert code == 0
    assert (summary["done"], summary["skipped"]) == (1, 5)
    assert (summary["items"], summary["written"]) == (10, 0)
    assert counts(settings, "crash") == stored


def test_facts_go_one_space_per_file_in_parallel_or_one_by_one_in_a_shared_space(
    batch: ModuleType, settings: Settings, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = str(BATCH / "facts")
    code, summary = ingest(
        batch, capsys, folder, "--layer", "facts", "--space-per-file", "--workers", "3"
    )
    assert code == 0 and summary["workers"] == 3 and summary["done"] == 3
    assert counts(settings, "north-office")["MemoryUnit"] == 6
    assert counts(settings, "south-office")["Subject"] == 2
    code, summary = ingest(batch, capsys, folder, "--layer", "facts", "--space", "all-offices")
    assert code == 0 and summary["workers"] == 1
    assert counts(settings, "all-offices")["MemoryUnit"] == summary["items"] == 16


def test_a_bad_space_name_stops_before_any_work(
    batch: ModuleType, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    code = batch.main([str(BATCH / "conversations"), "--space", "x}) //", "--json"])
    assert code == 6
    assert "invalid space name" in capsys.readouterr().err


def test_the_workers_book_their_llm_tokens(
    batch: ModuleType,
    settings: Settings,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fake_openai: FakeOpenAI,
) -> None:
    """A pool worker is never closed, so the tokens its files cost must be written per file
    (the fake's answers fail validation: the offline path stores the turns, the calls count)."""
    monkeypatch.setenv("GRAPHMEM_LLM", "openai")
    monkeypatch.setenv("GRAPHMEM_LLM_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("GRAPHMEM_LLM_MAX_RETRIES", "0")
    args = (str(BATCH / "conversations"), "--space", "team", "--workers", "2")
    code, summary = ingest(batch, capsys, *args, "--done", str(tmp_path / "done.jsonl"))
    assert code == 0 and summary["written"] == 60, summary
    assert fake_openai.requests, "the workers asked no LLM"
    with GraphMemory(Settings()) as memory:
        booked = memory.token_usage("team").as_dict()["llm"]
    assert booked["calls"] == len(fake_openai.requests), booked
    assert booked["prompt_tokens"] == 11 * booked["calls"]
