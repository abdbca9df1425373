"""benchmarks/ranker_cv.py: each candidate's features come from its own lists, its neighbours
in its session and its session's other candidates; a fold never trains on what it scores."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from graphmem_neo4j.conversation.fusion import Candidate
from graphmem_neo4j.conversation.models import FusionWeights
from tests.benchmark_module import load_benchmark

ranker = load_benchmark("ranker_cv")
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


def row(ids: list[str], rows: np.ndarray, turn: str) -> list[float]:
    return [float(x) for x in rows[ids.index(turn)]]


def test_a_candidate_carries_its_scores_its_neighbours_and_its_session() -> None:
    ids, rows = ranker.features(kept())
    assert sorted(ids) == ["a1", "a2", "b1"]
    a1, a2, b1 = row(ids, rows, "a1"), row(ids, rows, "a2"), row(ids, rows, "b1")
    # dense cosine, its place between the list's last and best entry, in the list
    assert a1[:3] == pytest.approx([0.5, 0.75, 1.0])
    # BM25 over the best, in the list; a2 is not in the BM25 list
    assert a1[4:6] == pytest.approx([1.0, 1.0])
    assert a2[4:6] == pytest.approx([0.0, 0.0])
    # the turn after a1 is a2 (relative dense 1.0); the turn before a2 is a1
    assert a1[9] == pytest.approx(1.0)
    assert a2[7:9] == pytest.approx([0.75, 1.0])
    assert b1[7:11] == pytest.approx([0.0, 0.0, 0.0, 0.0])
    # Maya is named: her turn says so, Tom's does not; a2 asks a question
    assert (a1[11], a2[11], a1[12]) == (1.0, 0.0, 1.0)
    assert (a1[14], a2[14]) == (0.0, 1.0)
    # what the session holds: s1's best relative dense and BM25, two candidates
    assert a1[-4:-1] == pytest.approx([1.0, 1.0, np.log1p(2)])
    assert b1[-4:-1] == pytest.approx([0.0, 0.5, np.log1p(1)])


def test_a_fold_scores_only_its_held_out_questions_with_a_model_fitted_on_the_others() -> None:
    train = [kept("c1"), kept("c1", ("a2",)), kept("c2"), kept("c2", ("b1",))]
    test = kept("c3")
    questions = [*train, test]
    table = [ranker.features(k) for k in questions]
    fitted: list[int] = []

    class Recorder:
        def fit(self, x: np.ndarray, y: np.ndarray) -> None:
            fitted.append(len(y))

        def predict_proba(self, x: np.ndarray) -> np.ndarray:
            p = x[:, 11]  # speaker named: ranks Maya's a1 first
            return np.stack([1 - p, p], axis=1)

    scores = ranker.held_out(questions, table, {"c1", "c2"}, {"c3"}, Recorder)
    assert fitted == [12]  # three candidates for each of the four training questions
    assert scores == {4: 1.0}


def test_the_written_ranker_is_the_fitted_regression_and_the_product_ranks_with_it() -> None:
    from graphmem_neo4j.conversation.ranker import LinearRanker, rank

    # a1 (Maya's, the BM25 match) is the evidence of every question
    questions = [kept("c1"), kept("c1"), kept("c2"), kept("c2")]
    table = [ranker.features(k) for k in questions]
    make = ranker.candidates()["logistic C=1"]
    written = ranker.fitted_ranker(questions, table, make, "test-model", "four questions")
    loaded = LinearRanker.from_json(written.to_json(), "written.json")
    assert loaded == written and loaded.model == "test-model"
    # the same probabilities as the pipeline it came from
    pipeline = make()
    x = np.vstack([rows for _, rows in table])
    pipeline.fit(x, [int(i == "a1") for ids, _ in table for i in ids])
    expected = pipeline.decision_function(table[0][1])
    assert loaded.logits(table[0][1]) == pytest.approx(expected)
    inputs = questions[0].inputs
    hits = rank(loaded, inputs["dense"], inputs["lexical"], 3, speakers=inputs["speakers"])
    assert hits[0].turn_id == "a1"
