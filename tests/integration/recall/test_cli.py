"""`graphmem chat-log`, `graphmem recall` and the token lines of `graphmem stats`, end to end
on the embedded engine, with the files shipped in examples/."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import EXAMPLES, Cli


def test_the_documented_session_workflow(cli: Cli) -> None:
    first = cli.json("chat-log", str(EXAMPLES / "chat_log.jsonl"), "--space", "demo")
    assert first["turns"]["turns_written"] == 6
    assert first["facts"]["counts"]["created"] == 3  # Lisbon, Acme Robotics, green tea
    assert first["task"]["outcome"] == "recorded"
    assert first["task"]["feedback"]["add"]["decision"]  # the resolved task adds an insight
    assert first["trajectory"]["added"] == 1

    second = cli.json("chat-log", str(EXAMPLES / "chat_log_2.jsonl"), "--space", "demo")
    superseded = second["facts"]["counts"]["superseded"]
    assert superseded == 2  # Porto replaces Lisbon, Globex replaces Acme Robotics
    # the heat-egg insight is not handed to the cooling task: the logs name their task types
    assert second["task"]["retrieved"] == []
    assert second["task"]["feedback"]["edits"] == []

    again = cli.json("chat-log", str(EXAMPLES / "chat_log.jsonl"), "--space", "demo")
    assert again["turns"]["turns_written"] == 0
    assert again["facts"]["counts"].get("created", 0) == 0
    assert again["task"]["outcome"] == "unchanged"
    assert again["trajectory"]["unchanged"] == 1

    recalled = cli.json("recall", "Where does Maya live now?", "--space", "demo", "-b", "400")
    facts = [i for i in recalled["items"] if i["layer"] == "facts"]
    assert facts and "Porto" in facts[0]["text"]
    assert all("Lisbon" not in i["text"] for i in facts)  # superseded values stay out
    assert recalled["tokens_used"] <= 400

    query = "heat some potato and put it in the countertop"
    text = cli.run("recall", query, "--space", "demo", "--layers", "insights")
    assert text.startswith("## Insights")
    assert "tokens:" in text and "insights" in text

    stats = cli.json("stats", "--space", "demo")
    assert stats["tokens"]["recall"]["calls"] == 2
    assert stats["tokens"]["recall"]["context_tokens"] > 0
    assert stats["tokens"]["llm"]["calls"] == 0
    plain = cli.run("stats", "--space", "demo")
    assert "tokens: LLM 0 prompt + 0 completion in 0 calls" in plain
    assert "tokens: recall" in plain and "context tokens in 2 calls" in plain


def test_options_give_the_outcome(cli: Cli, tmp_path: Path) -> None:
    log = tmp_path / "bike.jsonl"
    log.write_text(
        "\n".join(
            json.dumps(row)
            for row in (
                {"role": "user", "content": "My bike chain keeps slipping."},
                {"role": "assistant", "content": "Tighten the rear wheel and oil the chain."},
                {"role": "user", "content": "That fixed it, thanks!"},
            )
        ),
        encoding="utf-8",
    )
    out = cli.json(
        "chat-log", str(log), "--space", "bikes", "--outcome", "resolved",
        "--task-id", "bike-1", "--no-learn",
    )  # fmt: skip
    assert out["session"] == "bike"
    assert out["task"]["id"] == "bike-1" and out["task"]["feedback"] is None
    assert out["trajectory"] is None  # no agent steps: no trajectory
    assert out["facts"] is None  # nothing the offline patterns read


def test_bad_logs_stop_with_file_line_and_field_and_store_nothing(cli: Cli, tmp_path: Path) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text(
        json.dumps({"speaker": "Ann", "text": "I live in Oslo."})
        + "\n"
        + json.dumps({"speaker": "Ann", "text": "ok", "action": "go"})
        + "\n",
        encoding="utf-8",
    )
    out = cli.run("chat-log", str(log), "--space", "never", code=6)
    assert f"{log}:2" in out and "a line is a turn" in out
    assert "never" not in cli.json("spaces")
    out = cli.run("chat-log", str(tmp_path / "missing.jsonl"), "--space", "never", code=6)
    assert "no such file" in out
    out = cli.run(
        "chat-log", str(EXAMPLES / "chat_log.jsonl"), "--space", "never", "--task-id", "x",
        "--outcome", "maybe", code=6,
    )  # fmt: skip
    assert "outcome" in out
    assert "never" not in cli.json("spaces")


def test_recall_errors(cli: Cli) -> None:
    assert "unknown space" in cli.run("recall", "anything", "--space", "nobody", code=5)
    cli.json("chat-log", str(EXAMPLES / "chat_log.jsonl"), "--space", "demo")
    out = cli.run("recall", "x", "--space", "demo", "--layers", "facts,dreams", code=6)
    assert "unknown layer 'dreams'" in out
    assert cli.run("recall", "x", "--space", "demo", "--budget", "5", code=2)


def test_help_explains(cli: Cli) -> None:
    for command in ("recall", "chat-log", "mcp"):
        out = cli.run(command, "--help")
        assert "Usage" in out and len(out.splitlines()) > 8
