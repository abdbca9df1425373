"""benchmarks/longmemeval.py on a three-instance sample in LongMemEval's layout."""

from __future__ import annotations

import json
from pathlib import Path

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
