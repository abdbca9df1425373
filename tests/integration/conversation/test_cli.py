"""`graphmem ingest|search|forget|restore` end to end on the embedded engine."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphmem_neo4j.cli.main import app
from graphmem_neo4j.store.embedded import EmbeddedServer

from .conftest import EXAMPLE

QUERIES = EXAMPLE.parent / "conversation_queries.jsonl"


@pytest.fixture
def cli(falkordb_server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("GRAPHMEM_HOME", str(falkordb_server.home))
    monkeypatch.setenv("GRAPHMEM_DATABASE", f"cli_{uuid.uuid4().hex[:10]}")
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "hash")
    return CliRunner()


def run(cli: CliRunner, *args: str) -> tuple[int, str, str]:
    result = cli.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_ingest_search_forget_restore(cli: CliRunner) -> None:
    code, out, _ = run(cli, "ingest", str(EXAMPLE), "--space", "demo", "--json")
    assert code == 0, out
    report = json.loads(out)
    assert report["turns_written"] == 61 and report["space"] == "demo"
    code, out, _ = run(cli, "ingest", str(EXAMPLE), "--space", "demo")
    assert code == 0 and "0 turns written, 61 already stored" in out

    code, out, _ = run(
        cli, "search", "What did Maya adopt, and when?", "--space", "demo", "-k", "3"
    )
    assert code == 0 and out.startswith(" 1. [")
    assert "adopted" in out
    code, out, _ = run(cli, "search", "Biscuit", "-s", "demo", "--mode", "sf", "--json")
    data = json.loads(out)
    assert code == 0 and data["mode"] == "sf" and data["nodes"]

    code, out, _ = run(
        cli,
        "forget",
        "--space",
        "demo",
        "--dry-run",
        "--threshold",
        "0.9",
        "--min-age",
        "0",
        "--json",
    )
    assert code == 0
    dry = json.loads(out)
    assert dry["dry_run"] and dry["nodes_removed"] > 0
    code, out, _ = run(cli, "forget", "--space", "demo", "--threshold", "0.9", "--min-age", "0")
    assert code == 0 and f"removed {dry['nodes_removed']} of" in out and "graphmem restore" in out
    code, out, _ = run(cli, "restore", "--space", "demo", "--json")
    assert code == 0 and json.loads(out)["nodes_restored"] == dry["nodes_removed"]


def test_batch_search_prints_one_json_line_per_query(cli: CliRunner) -> None:
    assert run(cli, "ingest", str(EXAMPLE), "--space", "demo")[0] == 0
    code, out, _ = run(
        cli, "search", "--batch", str(QUERIES), "--space", "demo", "-k", "2", "--json"
    )
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["id"] for line in lines] == ["q1", "q2", "q3", "q4", "q5"]
    hit = lines[0]["hits"][0]
    assert set(hit) == {"turn_id", "session", "speaker", "text", "score", "via"}
    assert all(len(line["hits"]) == 2 for line in lines)
    # the tests' hash embedder has no shipped ranker: the fusion orders every hybrid search
    assert {line["ranked_by"] for line in lines} == {"fusion"}


def test_locomo_format_makes_a_space_per_sample(cli: CliRunner, tmp_path: Path) -> None:
    record = {
        "sample_id": "conv-t",
        "conversation": {
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "I love kayaking."}],
        },
    }
    path = tmp_path / "l.json"
    path.write_text(json.dumps([record]))
    code, out, _ = run(cli, "ingest", str(path), "--format", "locomo")
    assert code == 0 and "space conv-t: 1 turns written" in out
    code, out, _ = run(cli, "search", "kayaking", "--space", "conv-t", "--json")
    assert json.loads(out)["hits"][0]["turn_id"] == "D1:1"


def test_longmemeval_haystacks_are_searched_through_the_cli(cli: CliRunner, tmp_path: Path) -> None:
    """`ingest --format longmemeval` makes a space per question; the benchmark's query file
    runs through `search --batch`, each question in its own space."""
    from tests.benchmark_module import load_benchmark

    sample = Path(__file__).parents[2] / "fixtures" / "longmemeval_sample.json"
    code, out, _ = run(cli, "ingest", str(sample), "--format", "longmemeval", "--json")
    assert code == 0, out
    reports = {r["space"]: r["turns_written"] for r in json.loads(out)}
    assert reports == {"lme_bike": 8, "lme_trip": 7, "lme_pet_abs": 4}
    queries = tmp_path / "q.jsonl"
    longmemeval = load_benchmark("longmemeval")
    assert longmemeval.main(["--data", str(sample), "--write-queries", str(queries)]) == 0
    asked = [json.loads(line) for line in queries.read_text().splitlines()]
    assert [(q["id"], q["space"]) for q in asked] == [
        ("lme_bike", "lme_bike"),
        ("lme_trip", "lme_trip"),
    ]  # the abstention question has no evidence to find
    code, out, _ = run(cli, "search", "--batch", str(queries), "-k", "3", "--json")
    assert code == 0, out
    found = {}
    for line in map(json.loads, out.splitlines()):
        found[line["id"]] = [hit["turn_id"] for hit in line["hits"]]
    assert "answer_bike:0" in found["lme_bike"]
    assert "answer_trip:2" in found["lme_trip"]


def test_errors_exit_non_zero_with_a_clear_message(cli: CliRunner, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    good = {"session": "s", "turn_id": "t", "speaker": "A", "text": "ok"}
    rows = [good, {**good, "session": 1, "turn_id": "t2"}]
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, _, err = run(cli, "ingest", str(bad), "--space", "x")
    assert code == 6 and f"{bad}:2" in err and "field 'session'" in err
    code, _, err = run(cli, "ingest", str(tmp_path / "missing.jsonl"))
    assert code == 6 and "no such file" in err
    code, _, err = run(cli, "ingest", str(bad), "--format", "csv")
    assert code == 6 and "unknown format 'csv': use jsonl, locomo, longmemeval" in err
    code, _, err = run(cli, "search", "anything", "--space", "nowhere")
    assert code == 5 and "unknown space 'nowhere'" in err
    code, _, err = run(cli, "search", "--space", "x")
    assert code == 6 and "QUERY or --batch" in err
    code, _, err = run(cli, "search", "dogs", "--mode", "magic")
    assert code == 6 and "unknown mode" in err
    code, _, err = run(cli, "search", "dogs", "--ranking", "best")
    assert code == 6 and "unknown ranking 'best': use auto, learned, fusion" in err


def test_the_ranking_is_chosen_on_the_command_line(cli: CliRunner) -> None:
    assert run(cli, "ingest", str(EXAMPLE), "--space", "demo")[0] == 0
    question = ["search", "What did Maya adopt, and when?", "--space", "demo", "--json"]
    code, out, _ = run(cli, *question, "--ranking", "fusion")
    assert code == 0 and json.loads(out)["hits"]
    # the hash embedder has no shipped ranker: auto falls back to the fusion, learned refuses
    code, auto, _ = run(cli, *question)
    assert code == 0 and json.loads(auto)["hits"] == json.loads(out)["hits"]
    assert json.loads(auto)["ranked_by"] == "fusion"
    code, _, err = run(cli, *question, "--ranking", "learned")
    assert code == 6 and "no learned ranker ships for embedding model 'hash-" in err


def test_help_explains_the_commands(cli: CliRunner) -> None:
    for command, phrase in [
        ("ingest", "nothing is written"),
        ("search", "--batch"),
        ("forget", "--dry-run"),
        ("restore", "--run"),
    ]:
        code, out, _ = run(cli, command, "--help")
        assert code == 0 and phrase in out
