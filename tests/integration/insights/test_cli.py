"""`graphmem tasks ...` and `graphmem insights ...` end to end on the embedded engine."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphmem_neo4j.cli.main import app
from graphmem_neo4j.store.embedded import EmbeddedServer

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.fixture
def cli(falkordb_server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("GRAPHMEM_HOME", str(falkordb_server.home))
    monkeypatch.setenv("GRAPHMEM_DATABASE", f"cli_{uuid.uuid4().hex[:10]}")
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "hash")
    return CliRunner()


def run(cli: CliRunner, *args: str, code: int = 0) -> str:
    result = cli.invoke(app, list(args))
    assert result.exit_code == code, result.output
    return result.output


def test_the_documented_workflow(cli: CliRunner) -> None:
    space = ("--space", "demo")
    first = json.loads(run(cli, "tasks", "record", str(EXAMPLES / "tasks.jsonl"), *space, "--json"))
    assert (first["recorded"], first["unchanged"]) == (3, 0)
    again = json.loads(run(cli, "tasks", "record", str(EXAMPLES / "tasks.jsonl"), *space, "--json"))
    assert (again["recorded"], again["unchanged"]) == (0, 3)

    judged = json.loads(run(cli, "insights", "feedback", "--pending", *space, "--json"))
    assert [r["task_id"] for r in judged["results"]] == [
        "heat-egg-1",
        "heat-potato-1",
        "clean-mug-1",
    ]
    assert all(r["applied"] for r in judged["results"])
    assert judged["results"][0]["add"]["decision"]
    assert judged["results"][0]["decided_by"] == "controller:offline"

    online = json.loads(
        run(
            cli,
            "tasks",
            "record",
            str(EXAMPLES / "tasks_more.jsonl"),
            *space,
            "--feedback",
            "--json",
        )
    )
    verdicts = {t["id"]: t["feedback"] for t in online["tasks"]}
    # the first cooling task is handed no heating or cleaning insight: nothing of its kind
    # was learnt yet, so its failure judges nothing
    failed = verdicts["cool-egg-1"]
    assert failed["edits"] == [] and not failed["add"]["decision"]
    learnt = verdicts["cool-potato-1"]["created"]
    kept = verdicts["cool-apple-1"]["edits"]
    assert [(e["insight_id"], e["operation"]) for e in kept] == [(learnt[0], "KEEP")]
    assert "[rule structure] same task structure as its source (cool)" in kept[0]["reason"]

    found = json.loads(run(cli, "insights", "retrieve", "heat some bread", *space, "--json"))
    assert set(found) == {"insights"} and found["insights"]
    assert set(found["insights"][0]) == {"id", "text", "score", "positive", "negative"}

    listed = json.loads(run(cli, "insights", "list", "--all", *space, "--json"))
    insight = next(i for i in listed if i["id"] == judged["results"][0]["created"][0])
    trail = json.loads(run(cli, "insights", "history", insight["id"], *space, "--json"))
    first_edit = trail["edits"][0]
    assert first_edit["operation"] == "ADD" and first_edit["query_id"] == "heat-egg-1"
    assert first_edit["requested_by"].startswith("cli")
    text = run(cli, "insights", "history", insight["id"], *space)
    assert "ADD of " + insight["id"] + " on task heat-egg-1" in text

    shown = run(cli, "tasks", "show", "cool-egg-1", *space)
    assert "cool-egg-1 [failed]" in shown and "decided by controller:offline" in shown
    replay = json.loads(run(cli, "insights", "feedback", "cool-egg-1", *space, "--json"))
    assert replay["results"][0]["already_applied"]


def test_a_bad_file_is_refused_with_file_line_and_field(cli: CliRunner, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    good = (EXAMPLES / "tasks.jsonl").read_text(encoding="utf-8").splitlines()[0]
    bad.write_text(good + "\n" + '{"id": "x", "query": "q", "status": "won", "steps": []}\n')
    result = cli.invoke(app, ["tasks", "record", str(bad), "--space", "bad"])
    assert result.exit_code == 6
    assert f"{bad}:2, field 'status'" in result.output
    # nothing from the file was stored: the space was not even created
    result = cli.invoke(app, ["insights", "list", "--space", "bad"])
    assert result.exit_code == 5 and "unknown space 'bad'" in result.output


def test_errors_map_to_exit_codes(cli: CliRunner, tmp_path: Path) -> None:
    run(cli, "tasks", "record", str(EXAMPLES / "tasks.jsonl"), "--space", "s")
    assert "unknown space" in run(cli, "insights", "retrieve", "q", "--space", "nope", code=5)
    assert "no recorded task 'ghost'" in run(
        cli, "insights", "feedback", "ghost", "-s", "s", code=5
    )
    assert "give task ids or --pending" in run(cli, "insights", "feedback", "-s", "s", code=6)
    assert "no such file" in run(cli, "tasks", "record", str(tmp_path / "none.jsonl"), code=6)
    assert "invalid id" in run(cli, "insights", "history", "x'})", "-s", "s", code=6)


def test_help_explains_the_commands(cli: CliRunner) -> None:
    text = run(cli, "insights", "retrieve", "--help")
    assert "r = s − λ·c" in text and "--lambda" in text
    assert '"resolved"|"failed"' in run(cli, "tasks", "record", "--help")


SCIENCEWORLD = Path(__file__).resolve().parents[2] / "fixtures" / "scienceworld_small.jsonl"


def test_the_cli_default_path_is_the_replay_benchmarks_path(
    cli: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ScienceWorld runs recorded with `tasks record --feedback` and the default configuration
    (no domain pack) get exactly what `benchmarks/insights_replay.py` measures: its call,
    `record_tasks(..., learn=True)` with the default retrieval parameters, in another space."""
    monkeypatch.delenv("GRAPHMEM_DOMAIN_PACK", raising=False)
    tasks = tmp_path / "scienceworld_tasks.jsonl"
    with SCIENCEWORLD.open(encoding="utf-8") as source, tasks.open("w", encoding="utf-8") as out:
        for line in source:
            run_row = json.loads(line)
            resolved = run_row["reward"] == 1.0
            row = {
                "id": run_row["id"],
                "query": run_row["task"],
                "status": "resolved" if resolved else "failed",
                "steps": run_row["steps"],
                "feedback": "Task completed." if resolved else "Task failed.",
            }
            out.write(json.dumps(row) + "\n")
    shown = json.loads(
        run(cli, "tasks", "record", str(tasks), "--space", "cli", "--feedback", "--json")
    )
    from graphmem_neo4j.insights.parsing import read_tasks
    from graphmem_neo4j.memory import GraphMemory
    from graphmem_neo4j.settings import Settings

    with GraphMemory(Settings()) as memory:
        replayed = memory.insights.record_tasks(read_tasks(tasks).tasks, space="bench", learn=True)
    by_cli = {t["id"]: t for t in shown["tasks"]}
    assert len(by_cli) == len(replayed.tasks) >= 10
    retrieved_any = 0
    for done in replayed.tasks:
        mine = by_cli[done.id]
        assert [c["id"] for c in mine["retrieved"]] == [c.id for c in done.retrieved]
        assert done.feedback is not None
        assert [(e["insight_id"], e["operation"]) for e in mine["feedback"]["edits"]] == [
            (e.insight_id, e.operation) for e in done.feedback.plan.edits
        ]
        retrieved_any += bool(done.retrieved)
    assert retrieved_any > 0  # the stream is long enough for insights to be handed on
