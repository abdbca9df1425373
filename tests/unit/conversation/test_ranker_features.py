"""benchmarks/ranker_cv.py: each candidate's features come from its own lists, its neighbours
in its session and its session's other candidates; a fold never trains on what it scores."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from graphmem_neo4j.conversation.fusion import Candidate
from graphmem_neo4j.conversation.models import FusionWeights
from graphmem_neo4j.conversation.ranker import FEATURES, LinearRanker
from tests.benchmark_module import load_benchmark

ranker = load_benchmark("ranker_cv")
Figures = load_benchmark("figures").Figures
fusion_cv = load_benchmark("fusion_cv")

A1 = Candidate("a1", "s1", 1, "Maya", "I adopted a dog called Rex.")
A2 = Candidate("a2", "s1", 2, "Tom", "What breed is he?")
B1 = Candidate("b1", "s2", 5, "Tom", "We went hiking on Sunday.")


def kept(space: str = "c1", evidence: tuple[str, ...] = ("a1",)) -> Any:
    inputs = {
        "lexical": [(A1, 4.0), (B1, 2.0)],
        "dense": [(A2, 0.6), (A1, 0.5), (B1, 0.2)],
        "graph": [],
        "weights": FusionWeights(),
        "speakers": ["Maya"],
    }
    return fusion_cv.Kept(space, 1, list(evidence), inputs, [])


def row(ids: list[str], rows: np.ndarray, turn: str) -> dict[str, float]:
    return dict(zip(FEATURES, (float(x) for x in rows[ids.index(turn)]), strict=True))


def test_a_candidate_carries_its_scores_its_neighbours_and_its_session() -> None:
    ids, rows = ranker.features(kept())
    assert sorted(ids) == ["a1", "a2", "b1"]
    a1, a2, b1 = row(ids, rows, "a1"), row(ids, rows, "a2"), row(ids, rows, "b1")
    # the dense cosine's place between the list's last and best entry, in the list, its rank
    assert (a1["dense relative"], a1["in dense list"]) == pytest.approx((0.75, 1.0))
    assert a1["log dense rank"] == pytest.approx(np.log1p(1))
    # BM25 over the best, in the list; a2 is not in the BM25 list
    assert (a1["bm25 relative"], a1["in bm25 list"]) == pytest.approx((1.0, 1.0))
    assert (a2["bm25 relative"], a2["in bm25 list"]) == pytest.approx((0.0, 0.0))
    # the turn after a1 is a2 (relative dense 1.0); the turn before a2 is a1
    assert a1["next turn dense relative"] == pytest.approx(1.0)
    assert (a2["previous turn dense relative"], a2["previous turn bm25 relative"]) == (
        pytest.approx((0.75, 1.0))
    )
    assert b1["previous turn dense relative"] == b1["next turn dense relative"] == 0.0
    # Maya is named: her turn says so, Tom's does not; a2 asks a question
    assert (a1["speaker named"], a2["speaker named"]) == (1.0, 0.0)
    assert (a1["asks a question"], a2["asks a question"]) == (0.0, 1.0)
    assert a1["log length"] == pytest.approx(np.log1p(len(A1.text)))
    # what the session holds: s1's best relative dense and BM25, two candidates
    assert a1["session best dense relative"] == a1["session best bm25 relative"] == 1.0
    assert a1["log session candidates"] == pytest.approx(np.log1p(2))
    assert (b1["session best bm25 relative"], b1["log session candidates"]) == pytest.approx(
        (0.5, np.log1p(1))
    )


def test_the_kept_concept_list_reaches_the_products_features() -> None:
    c1 = Candidate("c1", "s3", 0, "Maya", "I play the clarinet.")
    question = kept()
    question.concept = [(c1, 3.0), (B1, 1.5)]
    ids, rows = ranker.features(question)
    assert sorted(ids) == ["a1", "a2", "b1", "c1"]
    c, b, a = row(ids, rows, "c1"), row(ids, rows, "b1"), row(ids, rows, "a1")
    assert (c["concept relative"], b["concept relative"], a["concept relative"]) == (1.0, 0.5, 0.0)
    assert (c["in concept list"], a["in concept list"]) == (1.0, 0.0)
    assert c["in dense list"] == 0.0 and c["log session candidates"] == pytest.approx(np.log1p(1))


class Recorder:
    """A classifier that records what it is fitted on and asked about, and ranks by whether
    the candidate's speaker is named (Maya's a1 first)."""

    fitted: ClassVar[list[np.ndarray]] = []
    asked: ClassVar[list[np.ndarray]] = []

    def fit(self, x: np.ndarray, y: np.ndarray) -> None:
        self.fitted.append(x)

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        self.asked.append(x)
        p = x[:, FEATURES.index("speaker named")]
        return np.stack([1 - p, p], axis=1)


def test_a_fold_scores_only_its_held_out_questions_with_a_model_fitted_on_the_others() -> None:
    train = [kept("c1"), kept("c1", ("a2",)), kept("c2"), kept("c2", ("b1",))]
    test = kept("c3")
    questions = [*train, test]
    table = [ranker.features(k) for k in questions]
    Recorder.fitted, Recorder.asked = [], []
    scores = ranker.held_out(questions, table, {"c1", "c2"}, {"c3"}, Recorder)
    assert [len(x) for x in Recorder.fitted] == [12]  # three candidates, four questions
    assert scores == {4: 1.0}


def test_a_held_out_question_is_scored_within_the_range_its_training_spanned() -> None:
    long_turn = replace(A1, id="a9", seq=9, text="I adopted a dog called Rex. " * 200)
    test = kept("c3")
    test.inputs = {**test.inputs, "dense": [(A2, 0.6), (long_turn, 0.5), (B1, 0.2)]}
    questions = [kept("c1"), kept("c2"), test]
    table = [ranker.features(k) for k in questions]
    Recorder.fitted, Recorder.asked = [], []
    ranker.held_out(questions, table, {"c1", "c2"}, {"c3"}, Recorder)
    length = FEATURES.index("log length")
    trained_max = Recorder.fitted[0][:, length].max()
    assert table[2][1][:, length].max() > trained_max  # the test turn is longer than any
    assert Recorder.asked[0][:, length].max() == trained_max  # and is held at the edge


def test_the_written_ranker_is_the_fitted_regression_and_the_product_ranks_with_it() -> None:
    from graphmem_neo4j.conversation.ranker import LinearRanker, Rankers, ranked

    # a1 (Maya's, the BM25 match) is the evidence of every question
    questions = [kept("c1"), kept("c1"), kept("c2"), kept("c2")]
    table = [ranker.features(k) for k in questions]
    make = ranker.candidates()["logistic C=1"]
    written = ranker.fitted_ranker(questions, table, make, "test-model", "four questions")
    loaded = LinearRanker.from_json(written.to_json(), "written.json")
    assert loaded == written and loaded.model == "test-model"
    # the kind of conversation it was fitted on: the median of its questions' pool lengths
    lengths = sorted(float(np.median(rows[:, FEATURES.index("log length")])) for _, rows in table)
    assert loaded.pool_length == pytest.approx((lengths[1] + lengths[2]) / 2)
    x = np.vstack([rows for _, rows in table])
    assert loaded.low == tuple(x.min(axis=0)) and loaded.high == tuple(x.max(axis=0))
    # the same probabilities as the pipeline it came from
    pipeline = make()
    pipeline.fit(x, [int(i == "a1") for ids, _ in table for i in ids])
    expected = pipeline.decision_function(table[0][1])
    assert loaded.logits(table[0][1]) == pytest.approx(expected)
    inputs = questions[0].inputs
    hits, used = ranked(
        Rankers((loaded,)), inputs["dense"], inputs["lexical"], 3, speakers=inputs["speakers"]
    )
    assert used is loaded
    assert hits[0].turn_id == "a1"


def test_the_graph_variant_adds_the_graph_lists_candidates_and_three_columns() -> None:
    c1 = Candidate("c1", "s3", 0, "Maya", "Rex chased the ball.")
    question = kept()
    question.inputs = {**question.inputs, "graph": [(A1, 2.0), (c1, 1.0)]}
    plain_ids, plain = ranker.features(question)
    ids, rows = ranker.with_graph(question)
    assert sorted(ids) == sorted([*plain_ids, "c1"])
    assert rows.shape[1] == plain.shape[1] + 3
    split = len(FEATURES) - 4  # the graph block sits before the session block
    by_id = {i: rows[n] for n, i in enumerate(ids)}
    assert list(by_id["a1"][split : split + 3]) == pytest.approx([1.0, 1.0, 0.0])
    assert list(by_id["c1"][split : split + 3]) == pytest.approx([0.5, 1.0, np.log1p(1)])
    assert by_id["a2"][split + 1] == 0.0
    # the product's own columns are unchanged
    plain_a1 = plain[plain_ids.index("a1")]
    assert list(by_id["a1"][:split]) == pytest.approx(list(plain_a1[:split]))
    assert list(by_id["a1"][split + 3 :]) == pytest.approx(list(plain_a1[split:]))


def kind_question(space: str, length: int, n: int) -> Any:
    """A question over 20 candidate turns of `length` characters whose evidence is the dense
    list's first turn, or with long turns (an assistant's answers) its last, which the
    BM25 list puts first: each kind of conversation wants another ranker."""
    turns = [
        Candidate(f"{space}-{n}-{i}", f"{space}-{n}-s{i}", 0, "Maya", "x" * length)
        for i in range(20)
    ]
    dense = [(t, 0.95 - 0.04 * i) for i, t in enumerate(turns)]
    lexical = [(t, 1.0 + i) for i, t in enumerate(turns)]
    evidence = turns[-1].id if length > 300 else turns[0].id
    inputs = {"lexical": lexical, "dense": dense, "graph": [], "weights": FusionWeights()}
    return fusion_cv.Kept(space, 1, [evidence], inputs, [])


def test_the_cross_set_run_ranks_each_question_by_its_own_kinds_ranker(tmp_path: Path) -> None:
    chat = [kind_question(c, 100, n) for c in ("c1", "c2", "c3") for n in range(4)]
    assistant = [kind_question("lme", 1_200, n) for n in range(12)]
    figures = Figures("test")
    ranker.cross_set(chat, assistant, figures)
    got = {f["name"]: f["value"] for f in figures.figures}
    assert got["questions routed to their own set's ranker"] == 24
    # LoCoMo's ranker misses every long-turn question, each kind's own ranker finds them all
    assert got["trained on LoCoMo only: LongMemEval R@10"] == 0.0
    assert got["trained on each, chosen by pool length: LongMemEval R@10"] == 1.0
    assert got["trained on each, chosen by pool length: LoCoMo dev R@10"] == 1.0
    path = tmp_path / "model+longmemeval.json"
    systems = {("logistic C=0.1", True): ranker.candidates()["logistic C=0.1"]}
    ranker.write_longmemeval(assistant, systems, "test-model", path)
    written = LinearRanker.from_json(json.loads(path.read_text()), str(path))
    assert written.pool_length == pytest.approx(np.log1p(1_200))
    assert "12 LongMemEval oracle questions" in written.fitted_on
