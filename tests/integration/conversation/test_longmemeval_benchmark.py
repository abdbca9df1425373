"""benchmarks/longmemeval.py on a three-instance sample in LongMemEval's layout."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graphmem_neo4j.errors import InputError
from tests.benchmark_module import load_benchmark

SAMPLE = Path(__file__).parents[2] / "fixtures" / "longmemeval_sample.json"


def test_scores_count_evidence_turns_and_sessions() -> None:
    longmemeval = load_benchmark("longmemeval")
    asked = longmemeval.questions(SAMPLE)
    assert sorted(asked) == ["lme_bike", "lme_trip"]  # the _abs question is left out
    bike = asked["lme_bike"]
    assert (bike["turns"], bike["sessions"]) == (["answer_bike:0"], ["answer_bike"])
    assert longmemeval.scores(["shared_garden:0", "answer_bike:1"], bike, 2) == {
        "turn": 0.0,
        "session": 1.0,  # a turn of the evidence session, not the evidence turn
    }
    assert longmemeval.scores(["x:0", "answer_bike:0"], bike, 1) == {"turn": 0.0, "session": 0.0}
    assert longmemeval.scores(["x:0", "answer_bike:0"], bike, 2) == {"turn": 1.0, "session": 1.0}


def test_the_benchmark_ingests_each_haystack_and_scores_it(tmp_path: Path) -> None:
    longmemeval = load_benchmark("longmemeval")
    out = tmp_path / "figures.json"
    args = ["--data", str(SAMPLE), "--embedder", "hash", "-k", "3", "--json-out", str(out)]
    assert longmemeval.main(args) == 0
    figures = {f["name"]: f["value"] for f in json.loads(out.read_text())["figures"]}
    assert figures["hybrid turn@3"] == 1.0 and figures["hybrid session@3"] == 1.0
    assert {"baseline bm25 turn@3", "baseline dense session@3"} <= set(figures)
    assert figures["ingest"] > 0


def test_pooled_puts_every_haystack_in_one_space_and_asks_every_question_of_it(
    tmp_path: Path, capsys: Any
) -> None:
    longmemeval = load_benchmark("longmemeval")
    out = tmp_path / "figures.json"
    args = ["--data", str(SAMPLE), "--embedder", "hash", "--pooled", "-k", "3"]
    assert longmemeval.main([*args, "--rankings", "auto,fusion", "--json-out", str(out)]) == 0
    printed = capsys.readouterr().out
    # the shared sessions are stored once: 2 + 4 + 2 + 3 turns, not 15
    assert "[1/1] longmemeval: 11 turns" in printed
    result = json.loads(out.read_text())
    assert result["benchmark"] == "longmemeval"
    figures = {f["name"]: f["value"] for f in result["figures"]}
    for system in ("hybrid auto", "hybrid fusion"):
        assert figures[f"{system} session@3"] == 1.0
        assert figures[f"{system} turn@3, single-session-user"] == 1.0
    assert figures["baseline bm25 turn@3, 95% interval low"] <= figures["baseline bm25 turn@3"]


def test_a_learned_ranking_needs_a_model_that_ships_one(tmp_path: Path) -> None:
    longmemeval = load_benchmark("longmemeval")
    args = ["--data", str(SAMPLE), "--embedder", "hash", "--rankings", "learned"]
    with pytest.raises(InputError, match="no learned ranker ships for embedding model"):
        longmemeval.main(args)


def test_unknown_rankings_are_refused(capsys: Any) -> None:
    longmemeval = load_benchmark("longmemeval")
    with pytest.raises(SystemExit):
        longmemeval.main(["--data", str(SAMPLE), "--rankings", "auto,best"])
    assert "--rankings: best; use auto, learned, fusion" in capsys.readouterr().err


def test_pooled_queries_ask_the_pool(tmp_path: Path) -> None:
    longmemeval = load_benchmark("longmemeval")
    out = tmp_path / "q.jsonl"
    assert longmemeval.main(["--data", str(SAMPLE), "--pooled", "--write-queries", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["space"]) for r in rows] == [
        ("lme_bike", "longmemeval"),
        ("lme_trip", "longmemeval"),
    ]


def test_the_ranker_benchmark_collects_longmemeval_over_one_pool() -> None:
    from graphmem_neo4j.embedder import HashEmbedder

    ranker_cv = load_benchmark("ranker_cv")
    kept = ranker_cv.collect_longmemeval(SAMPLE, HashEmbedder(64))
    assert [(k.space, ranker_cv.LONGMEMEVAL_TYPES[k.category], k.evidence) for k in kept] == [
        ("longmemeval", "single-session-user", ["answer_bike:0"]),
        ("longmemeval", "temporal-reasoning", ["answer_trip:2"]),
    ]
    # every question's candidates come from the whole pool, its own evidence among them
    for k in kept:
        pooled = {c.id for c, _ in k.inputs["lexical"]} | {c.id for c, _ in k.inputs["dense"]}
        assert set(k.evidence) <= pooled
        assert any(i.startswith("answer_bike") for i in pooled)
        assert any(i.startswith("answer_trip") for i in pooled)
