"""The learned ranker: what its shipped files hold, how it orders candidates, and when hybrid
search uses it instead of the fusion."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphmem_neo4j.conversation.fusion import Candidate
from graphmem_neo4j.conversation.models import ConversationConfig, FusionWeights
from graphmem_neo4j.conversation.ranker import (
    FEATURES,
    FORMAT,
    RANKERS,
    LinearRanker,
    Rankers,
    chosen_ranker,
    features,
    model_key,
    ranked,
    ranker_for_model,
)
from graphmem_neo4j.conversation.text import TimeRange
from graphmem_neo4j.errors import ConfigError, InputError

A1 = Candidate("a1", "s1", 1, "Maya", "I adopted a dog called Rex.")
A2 = Candidate("a2", "s1", 2, "Tom", "What breed is he?")
B1 = Candidate("b1", "s2", 5, "Tom", "We went hiking on Sunday.")
DENSE = [(A2, 0.6), (A1, 0.5), (B1, 0.2)]
LEXICAL = [(B1, 4.0), (A1, 2.0)]


def only(feature: str, weight: float = 1.0) -> LinearRanker:
    """A ranker that reads one feature (unscaled, unbounded)."""
    n = len(FEATURES)
    coef = [weight if f == feature else 0.0 for f in FEATURES]
    return LinearRanker("test", FEATURES, (0.0,) * n, (1.0,) * n, tuple(coef), 0.0, *UNBOUNDED)


UNBOUNDED = ((-np.inf,) * len(FEATURES), (np.inf,) * len(FEATURES))


def rank(*args: Any, **kwargs: Any) -> list[Any]:
    """The hits ranked() returns."""
    return ranked(*args, **kwargs)[0]


def by(feature: str, weight: float = 1.0) -> Rankers:
    """A model's ranker set holding only that ranker."""
    return Rankers((only(feature, weight),))


def test_it_ranks_by_the_features_its_weights_read() -> None:
    by_bm25 = rank(by("bm25 relative"), dense=DENSE, lexical=LEXICAL, k=3)
    assert [h.turn_id for h in by_bm25] == ["b1", "a1", "a2"]
    by_dense = rank(by("dense relative"), dense=DENSE, lexical=LEXICAL, k=2)
    assert [h.turn_id for h in by_dense] == ["a2", "a1"]


def test_a_hit_scores_its_place_between_the_pools_worst_and_best_and_names_its_lists() -> None:
    # logits 2.0, 1.0, 0.0: the place between the pool's lowest and highest
    hits = rank(by("bm25 relative", 2.0), dense=DENSE, lexical=LEXICAL, k=3)
    assert [h.score for h in hits] == pytest.approx([1.0, 0.5, 0.0])
    top = rank(by("bm25 relative", 2.0), dense=DENSE, lexical=LEXICAL, k=1)
    assert [h.score for h in top] == [1.0]  # the pool, not the k returned, sets the scale
    alike = rank(by("in dense list"), dense=DENSE, lexical=LEXICAL, k=3)
    assert [h.score for h in alike] == [1.0, 1.0, 1.0]  # no spread: every candidate is best
    assert {h.turn_id: h.via for h in hits} == {
        "b1": ("fulltext", "vector"),
        "a1": ("fulltext", "vector"),
        "a2": ("vector",),
    }
    assert hits[0].session == "s2" and hits[0].seq == 5 and hits[0].speaker == "Tom"


def test_the_speaker_and_time_features_come_from_the_question() -> None:
    stamped = replace(A1, time=1_000)
    window = TimeRange(0, 2_000, "early")
    pool, rows = features([(stamped, 0.5), (B1, 0.2)], [], speakers=["Maya"], ranges=[window])
    named, in_range = (FEATURES.index(f) for f in ("speaker named", "in a named time range"))
    by_id = {c.id: rows[i] for i, c in enumerate(pool)}
    assert (by_id["a1"][named], by_id["b1"][named]) == (1.0, 0.0)
    assert (by_id["a1"][in_range], by_id["b1"][in_range]) == (1.0, 0.0)


def test_the_concept_list_adds_its_turns_and_describes_them() -> None:
    # c1 is in neither the dense nor the BM25 list: the concept source alone finds it.
    c1 = Candidate("c1", "s3", 0, "Maya", "I play the clarinet.")
    concept = [(c1, 2.0), (A1, 1.0)]
    pool, rows = features(DENSE, LEXICAL, concept=concept)
    by_id = {c.id: rows[i] for i, c in enumerate(pool)}
    score, present, place = (
        FEATURES.index(f) for f in ("concept relative", "in concept list", "log concept rank")
    )
    assert set(by_id) == {"a1", "a2", "b1", "c1"}
    assert [by_id[i][score] for i in ("c1", "a1", "b1")] == [1.0, 0.5, 0.0]
    assert [by_id[i][present] for i in ("c1", "a1", "b1")] == [1.0, 1.0, 0.0]
    assert by_id["c1"][place] < by_id["a1"][place] < by_id["b1"][place]
    hits = rank(by("concept relative"), dense=DENSE, lexical=LEXICAL, k=2, concept=concept)
    assert [(h.turn_id, h.via) for h in hits] == [
        ("c1", ("concept",)),
        ("a1", ("fulltext", "vector", "concept")),
    ]
    without = rank(by("concept relative"), dense=DENSE, lexical=LEXICAL, k=4)
    assert "c1" not in {h.turn_id for h in without} and len(without) == 3


def test_no_candidates_no_hits() -> None:
    assert rank(by("dense relative"), dense=[], lexical=[], k=5) == []
    pool, rows = features([], [])
    assert pool == [] and rows.shape == (0, len(FEATURES))


def test_a_ranker_file_round_trips_and_bad_files_are_refused(tmp_path: Path) -> None:
    n = len(FEATURES)
    ranker = replace(only("log length", 0.5), low=(0.0,) * n, high=(7.0,) * n)
    assert LinearRanker.from_json(json.loads(json.dumps(ranker.to_json())), "x") == ranker
    assert "pool_length" not in ranker.to_json()
    kind = replace(ranker, pool_length=6.25)
    assert LinearRanker.from_json(json.loads(json.dumps(kind.to_json())), "x") == kind
    data = ranker.to_json()
    data["features"] = data["features"][:-1]
    with pytest.raises(ConfigError, match="not the ones this version computes"):
        LinearRanker.from_json(data, "x.json")
    with pytest.raises(ConfigError, match=r"x\.json is not a ranker file"):
        LinearRanker.from_json({"format": FORMAT}, "x.json")
    unbounded = ranker.to_json()
    unbounded["features"] = [{k: v for k, v in f.items() if k != "high"} for f in data["features"]]
    with pytest.raises(ConfigError, match=r"x\.json is not a ranker file: KeyError\('high'\)"):
        LinearRanker.from_json(unbounded, "x.json")
    crossed = ranker.to_json()
    crossed["features"] = [{**f, "low": 1.0, "high": 0.0} for f in crossed["features"]]
    with pytest.raises(ConfigError, match="each feature needs a low <= high"):
        LinearRanker.from_json(crossed, "x.json")
    zero = {**ranker.to_json()}
    zero["features"] = [{**f, "scale": 0.0} for f in zero["features"]]
    with pytest.raises(ConfigError, match="every scale must be positive"):
        LinearRanker.from_json(zero, "x.json")
    with pytest.raises(ConfigError, match="format 'graphmem-ranker/1', expected"):
        LinearRanker.from_json({**ranker.to_json(), "format": "graphmem-ranker/1"}, "x.json")


@pytest.mark.parametrize("model", ["all-MiniLM-L6-v2", "bge-small-en-v1.5"])
def test_the_shipped_rankers_load_for_their_models(model: str) -> None:
    rankers = ranker_for_model(f"/some/where/{model}/")
    assert rankers is not None
    ranker = rankers.members[0]
    assert all(r.model == model and r.features == FEATURES for r in rankers.members)
    assert all(s > 0 for r in rankers.members for s in r.scale)
    assert ranker.name == model  # what a search reports as ranked_by
    # The main file is what `benchmarks/ranker_cv.py --write` prints: fitted on LoCoMo dev.
    assert "LoCoMo dev" in ranker.fitted_on
    assert (RANKERS / f"{model}.json").is_file()


def test_minilm_ships_a_second_ranker_for_conversations_with_an_assistant() -> None:
    rankers = ranker_for_model("all-MiniLM-L6-v2")
    assert rankers is not None and len(rankers.members) == 2
    chat, assistant = rankers.members
    assert "LongMemEval" in assistant.fitted_on
    assert chat.pool_length is not None and assistant.pool_length is not None
    # a LoCoMo question's candidates are about 140 characters long at the median, a
    # LongMemEval question's about 530
    assert chat.pool_length < np.log1p(200) < np.log1p(400) < assistant.pool_length


def pool_of(length: int) -> np.ndarray:
    """A question's feature rows whose turns are all `length` characters long."""
    turns = [Candidate(f"t{i}", "s", i, "Maya", "x" * length) for i in range(5)]
    return features([(t, 0.5) for t in turns], [])[1]


def test_a_question_is_ranked_by_the_ranker_whose_training_pools_its_pool_resembles() -> None:
    short = replace(only("bm25 relative"), pool_length=float(np.log1p(100)))
    long = replace(only("dense relative"), pool_length=float(np.log1p(1_200)))
    rankers = Rankers((short, long))
    assert rankers.for_pool(pool_of(80)) is short
    assert rankers.for_pool(pool_of(2_000)) is long
    assert rankers.for_pool(pool_of(300)) is short  # log 300 is nearer log 100 than log 1,200
    # the same lists ordered by the chosen ranker: BM25's order for short turns, the dense
    # list's for long ones
    lengthen = {c.id: replace(c, text=c.text * 60) for c, _ in DENSE}
    dense_long = [(lengthen[c.id], s) for c, s in DENSE]
    lexical_long = [(lengthen[c.id], s) for c, s in LEXICAL]
    assert [h.turn_id for h in rank(rankers, DENSE, LEXICAL, 3)] == ["b1", "a1", "a2"]
    assert [h.turn_id for h in rank(rankers, dense_long, lexical_long, 3)] == ["a2", "a1", "b1"]
    assert ranked(rankers, dense_long, lexical_long, 3)[1] is long
    assert ranked(rankers, [], [], 3) == ([], None)
    # a set of one ranker uses it whatever the pool
    assert Rankers((short,)).for_pool(pool_of(2_000)) is short


def test_several_rankers_must_each_say_what_pools_they_were_fitted_on() -> None:
    with pytest.raises(ConfigError, match="each must record its pool_length"):
        Rankers((only("bm25 relative"), replace(only("dense relative"), pool_length=6.0)))
    with pytest.raises(ConfigError, match="at least one ranker"):
        Rankers(())


def test_a_model_without_a_ranker_has_none() -> None:
    assert ranker_for_model("hash-64") is None
    assert model_key("C:\\models\\bge-small-en-v1.5") == "bge-small-en-v1.5"


def chosen(model: str, **config: Any) -> LinearRanker | None:
    return chosen_ranker(ConversationConfig(**config), model)


def test_auto_uses_the_models_ranker_while_its_weights_are_the_defaults() -> None:
    assert chosen("all-MiniLM-L6-v2") is not None
    assert chosen("all-MiniLM-L6-v2", weights=FusionWeights(graph=0.3)) is None
    assert chosen("hash-64") is None


def test_fusion_and_learned_are_asked_for_by_name() -> None:
    assert chosen("all-MiniLM-L6-v2", ranking="fusion") is None
    changed = chosen("all-MiniLM-L6-v2", ranking="learned", weights=FusionWeights(graph=0.3))
    assert changed is not None
    with pytest.raises(InputError, match="no learned ranker ships for embedding model 'hash-64'"):
        chosen("hash-64", ranking="learned")
    with pytest.raises(InputError, match="unknown ranking 'best'"):
        chosen("all-MiniLM-L6-v2", ranking="best")


def test_the_logits_standardise_then_weigh() -> None:
    n = len(FEATURES)
    coef = (1.0,) + (0.0,) * (n - 1)
    ranker = LinearRanker("t", FEATURES, (1.0,) * n, (2.0,) * n, coef, 0.5, *UNBOUNDED)
    rows = np.zeros((1, n))
    rows[0, 0] = 5.0
    assert ranker.logits(rows)[0] == pytest.approx((5.0 - 1.0) / 2.0 + 0.5)


def test_a_feature_beyond_the_range_seen_in_training_counts_as_its_edge() -> None:
    # The shipped ranker learned a length prior on LoCoMo's turns (44-434 characters): a reply
    # ten times longer than any of them weighs as much as the longest, not ten times more.
    rankers = ranker_for_model("all-MiniLM-L6-v2")
    assert rankers is not None
    ranker = rankers.members[0]
    length = FEATURES.index("log length")
    longest = ranker.high[length]
    at_edge = replace(A1, id="edge", text="x" * (round(np.expm1(longest))))
    beyond = replace(A1, id="beyond", text="x" * 4_000)
    # each alone in its question's pool, so that only the length differs
    rows = np.vstack([features([(turn, 0.5)], [])[1] for turn in (at_edge, beyond)])
    assert rows[1, length] > rows[0, length]
    assert np.delete(rows[0], length) == pytest.approx(np.delete(rows[1], length))
    logits = ranker.logits(rows)
    assert logits[0] == pytest.approx(logits[1])
    unbounded = replace(ranker, low=UNBOUNDED[0], high=UNBOUNDED[1])
    assert unbounded.logits(rows)[1] > unbounded.logits(rows)[0] + 1.0
    assert all(lo <= hi for lo, hi in zip(ranker.low, ranker.high, strict=True))
