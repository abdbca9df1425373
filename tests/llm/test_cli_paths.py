"""Every LLM path through the command line, with the bundled model as the LLM
(GRAPHMEM_LLM=openai): the README's workflows finish without a traceback, whatever the model
answers; every stored answer validates; reruns write nothing new; tokens show in `stats`."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from typer.testing import CliRunner

from graphmem_neo4j.cli.main import app
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings

from .checks import shape, stored_problems

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


def run(*args: str) -> dict:  # type: ignore[type-arg]
    result = CliRunner().invoke(app, [*args, "--json"])
    # a traceback is an exception that is not the CLI's own exit
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 0, result.stdout + result.stderr
    data = json.loads(result.stdout.strip().splitlines()[-1])  # --json prints one line
    assert isinstance(data, dict), data
    return data


def open_memory() -> GraphMemory:
    return GraphMemory(Settings())  # the environment llm_env set


def check_space(space: str) -> None:
    with open_memory() as memory:
        assert stored_problems(memory, space) == []


def test_chat_log_workflow_with_the_model(llm_env: object) -> None:
    first = run("chat-log", str(EXAMPLES / "chat_log.jsonl"), "--space", "chat")
    second = run("chat-log", str(EXAMPLES / "chat_log_2.jsonl"), "--space", "chat")
    for report in (first, second):
        # the model's facts, or the offline ones after its answers failed the checks
        assert report["facts_by"] == "llm" or report["facts_by"].startswith("offline")
        assert report["llm"]["calls"] >= 1
    check_space("chat")
    stats = run("stats", "--space", "chat")
    llm = stats["tokens"]["llm"]
    assert llm["calls"] >= 2 and llm["prompt_tokens"] > 0 and llm["completion_tokens"] > 0
    assert llm["by_layer"].get("facts", 0) > 0
    with open_memory() as memory:
        before = shape(memory, "chat")
    run("chat-log", str(EXAMPLES / "chat_log.jsonl"), "--space", "chat")
    run("chat-log", str(EXAMPLES / "chat_log_2.jsonl"), "--space", "chat")
    with open_memory() as memory:
        after = shape(memory, "chat")
    # the same logs again: nothing new (temperature 0, so the model answers the same)
    new = {k for k in after if k not in before and not k.startswith(("Query:", "InsightEdit:"))}
    assert new == set()


def test_facts_add_text_with_the_model(llm_env: object) -> None:
    text = "Alice lives in Paris since 2021. Bob works at Acme Corp. Alice likes green tea."
    first = run("facts", "add-text", text, "--space", "facts")
    check_space("facts")
    with open_memory() as memory:
        before = shape(memory, "facts")
    second = run("facts", "add-text", text, "--space", "facts")
    check_space("facts")
    assert second["counts"]["facts"] == first["counts"]["facts"]
    assert second["counts"].get("created", 0) == 0, second
    with open_memory() as memory:
        assert shape(memory, "facts") == before
    stats = run("stats", "--space", "facts")
    assert stats["tokens"]["llm"]["by_layer"].get("facts", 0) > 0


def test_insight_feedback_with_the_llm_controller(llm_env: object) -> None:
    run("tasks", "record", str(EXAMPLES / "tasks.jsonl"), "--space", "ins", "--feedback")
    report = run("tasks", "record", str(EXAMPLES / "tasks_more.jsonl"), "--space", "ins",
                 "--feedback")  # fmt: skip
    check_space("ins")
    deciders = [t["feedback"]["decided_by"] for t in report["tasks"] if t["feedback"]]
    assert deciders
    for decider in deciders:
        assert decider.startswith(("controller:llm:", "controller:offline")), decider
    stats = run("stats", "--space", "ins")
    assert stats["tokens"]["llm"]["by_layer"].get("insights", 0) > 0


def test_experience_add_with_llm_summaries(llm_env: object) -> None:
    run("experience", "add", str(EXAMPLES / "experience" / "expert.jsonl"), "--space", "exp")
    run("experience", "add", str(EXAMPLES / "experience" / "exploration.jsonl"), "--kind",
        "exploration", "--space", "exp")  # fmt: skip
    check_space("exp")
    with open_memory() as memory:
        before = shape(memory, "exp")
    run("experience", "add", str(EXAMPLES / "experience" / "expert.jsonl"), "--space", "exp")
    with open_memory() as memory:
        assert shape(memory, "exp") == before
    stats = run("stats", "--space", "exp")
    assert stats["tokens"]["llm"]["by_layer"].get("experience", 0) > 0


def test_ingest_extracts_turns_with_the_model(llm_env: object, tmp_path: Path) -> None:
    lines = (EXAMPLES / "conversation.jsonl").read_text(encoding="utf-8").splitlines()[:16]
    sample = tmp_path / "sample.jsonl"
    sample.write_text("\n".join(lines) + "\n", encoding="utf-8")
    space = f"conv-{uuid.uuid4().hex[:6]}"
    report = run("ingest", str(sample), "--space", space)
    assert report["turns_written"] == 16 and report["extractor"] == "llm"
    check_space(space)
    again = run("ingest", str(sample), "--space", space)
    assert again["turns_written"] == 0 and again["turns_skipped"] == 16
    stats = run("stats", "--space", space)
    assert stats["tokens"]["llm"]["by_layer"].get("conversation", 0) > 0
