"""Recall's pure logic: one score scale, de-duplication, packing into a budget."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem_neo4j.recall.models import SECTION_TITLES, Candidate, RecallConfig, Scored
from graphmem_neo4j.recall.rank import (
    calibrate,
    deduplicate,
    one_line,
    pack,
    relative,
    render_line,
    score,
)
from graphmem_neo4j.tokens import Layer, estimate_tokens


def cand(
    layer: Layer,
    ident: str,
    text: str = "some text here",
    r: float = 0.5,
    n: float = 1.0,
    order: tuple[object, ...] = (),
    label: str = "Node",
) -> Candidate:
    return Candidate(layer, label, ident, text, r, n, "why", order=order)


def test_calibrate_maps_the_band_linearly_and_clamps() -> None:
    assert calibrate(0.1, 0.3, 0.7) == 0.0
    assert calibrate(0.3, 0.3, 0.7) == 0.0
    assert calibrate(0.5, 0.3, 0.7) == pytest.approx(0.5)
    assert calibrate(0.9, 0.3, 0.7) == 1.0
    with pytest.raises(ValueError):
        calibrate(0.5, 0.7, 0.3)


def test_relative_divides_by_the_best_and_floors_negatives() -> None:
    assert relative([2.0, 1.0, -1.0]) == [1.0, 0.5, 0.0]
    assert relative([0.0, -3.0]) == [0.0, 0.0]
    assert relative([]) == []


def test_a_layer_with_only_unrelated_candidates_cannot_lead_on_its_own_ranking() -> None:
    unrelated = cand("experience", "task-1", r=0.0, n=1.0)  # its layer's best, but unrelated
    relevant = cand("conversation", "t9", r=0.6, n=0.2)  # weak in its layer, but related
    ranked = score([unrelated, relevant], RecallConfig())
    assert [s.candidate.id for s in ranked] == ["t9", "task-1"]
    assert ranked[1].score == 0.0


def test_score_formula_and_weights() -> None:
    config = RecallConfig(weights={"conversation": 2.0, "facts": 1.0}, dense_share=0.5)
    a = cand("conversation", "a", r=0.4, n=0.5)
    b = cand("conversation", "b", r=0.8, n=1.0)
    c = cand("facts", "c", r=0.5, n=1.0)
    by_id = {s.candidate.id: s.score for s in score([a, b, c], config)}
    # s = w·(β·r + (1-β)·c_L·n), c_L = best r of the layer (0.8 for conversation)
    assert by_id["a"] == pytest.approx(2.0 * (0.5 * 0.4 + 0.5 * 0.8 * 0.5))
    assert by_id["b"] == pytest.approx(2.0 * (0.5 * 0.8 + 0.5 * 0.8 * 1.0))
    assert by_id["c"] == pytest.approx(0.5 * 0.5 + 0.5 * 0.5 * 1.0)


def test_ties_are_broken_deterministically() -> None:
    items = [cand("conversation", "b"), cand("conversation", "a"), cand("facts", "z")]
    first = [s.candidate.id for s in score(items, RecallConfig())]
    again = [s.candidate.id for s in score(list(reversed(items)), RecallConfig())]
    assert first == again == ["z", "a", "b"]  # facts first on a tie, then by id


def scored(*cands: Candidate) -> list[Scored]:
    return score(list(cands), RecallConfig())


def test_the_same_node_twice_is_kept_once() -> None:
    kept, dropped = deduplicate(scored(cand("facts", "u1", r=0.9), cand("facts", "u1", r=0.3)), 0.8)
    assert [s.candidate.relevance for s in kept] == [0.9]
    assert dropped == 1
    assert kept[0].duplicates == ()


def test_near_identical_texts_from_two_layers_fold_into_the_better_one() -> None:
    text = "heat the egg in the microwave before putting it on the countertop"
    kept, dropped = deduplicate(
        scored(
            cand("insights", "ins-1", text, r=0.9, label="Insight"),
            cand("experience", "task-1", "Lesson: " + text.upper(), r=0.7, label="Task"),
            cand("conversation", "t1", "the weather in Lisbon is lovely today", r=0.8),
        ),
        0.8,
    )
    assert [s.candidate.id for s in kept] == ["ins-1", "t1"]
    assert kept[0].duplicates == ("Task:task-1",)
    assert dropped == 1


def test_deduplication_matches_comparing_every_pair() -> None:
    # the word index must find the same twin as comparing each item with every kept one
    from graphmem_neo4j.fulltext import terms

    rng = random.Random(5)
    vocabulary = [f"word{i}" for i in range(12)]
    texts = [" ".join(rng.sample(vocabulary, rng.randint(1, 6))) for _ in range(300)]
    items = scored(*(cand("conversation", f"t{i}", text) for i, text in enumerate(texts)))

    def reference(overlap: float) -> list[str]:
        kept: list[frozenset[str]] = []
        ids = []
        for item in items:
            mine = frozenset(terms(item.candidate.text, limit=400))
            if not any(
                min(len(mine), len(o)) >= 3 and len(mine & o) / min(len(mine), len(o)) >= overlap
                for o in kept
            ):
                kept.append(mine)
                ids.append(item.candidate.id)
        return ids

    for overlap in (0.5, 0.8, 1.0):
        kept, dropped = deduplicate(items, overlap)
        assert [s.candidate.id for s in kept] == reference(overlap)
        assert dropped == len(items) - len(kept) > 0


def test_short_texts_are_never_called_duplicates() -> None:
    kept, dropped = deduplicate(
        scored(cand("conversation", "t1", "Yes!"), cand("conversation", "t2", "yes")), 0.8
    )
    assert len(kept) == 2 and dropped == 0


def test_one_line_flattens_and_cuts() -> None:
    assert one_line("a\n  b\tc", 100) == "a b c"
    cut = one_line("word " * 50, 20)
    assert len(cut) <= 20 and cut.endswith("…")


def test_pack_respects_the_budget_and_labels_every_line() -> None:
    items = scored(
        cand("facts", "u1", "Maya lives in Porto", r=1.0, label="MemoryUnit"),
        cand("conversation", "t1", "Maya: I moved to Porto in June " * 3, r=0.8, label="Turn"),
        cand("insights", "ins-1", "Always check the fridge first", r=0.4, label="Insight"),
    )
    budget = 60
    packing = pack(items, budget=budget, config=RecallConfig())
    assert packing.tokens_used <= budget
    assert estimate_tokens(packing.context) == packing.tokens_used
    for item in packing.items:
        assert f"[{item.layer} {item.label} {item.id} |" in item.line
        assert item.line in packing.context.splitlines()
        assert item.tokens == estimate_tokens(item.line)
    assert sum(packing.tokens_by_layer.values()) == packing.tokens_used


def test_a_big_item_is_skipped_and_smaller_ones_fill_the_rest() -> None:
    big = cand("conversation", "big", "long " * 200, r=1.0, label="Turn")
    small = cand("conversation", "small", "short and relevant", r=0.9, label="Turn")
    packing = pack(scored(big, small), budget=50, config=RecallConfig())
    assert [i.id for i in packing.items] == ["small"]
    assert packing.over_budget == 1


def test_items_below_the_minimum_score_stay_out_whatever_the_budget() -> None:
    weak = cand("conversation", "weak", r=0.01, n=0.01)
    strong = cand("facts", "strong", r=0.9)
    packing = pack(scored(weak, strong), budget=10_000, config=RecallConfig(min_score=0.1))
    assert [i.id for i in packing.items] == ["strong"]
    assert packing.below_min_score == 1


def test_sections_come_in_order_of_their_best_item_and_turns_in_time_order() -> None:
    items = scored(
        cand("conversation", "late", "late turn text", r=0.9, order=(300, "s", 1)),
        cand("facts", "f", "a fact text", r=0.7),
        cand("conversation", "early", "early turn text", r=0.5, order=(100, "s", 0)),
    )
    context = pack(items, budget=500, config=RecallConfig()).context
    lines = context.splitlines()
    assert lines[0] == SECTION_TITLES["conversation"]
    assert lines.index(SECTION_TITLES["facts"]) > lines.index(SECTION_TITLES["conversation"])
    body = [line for line in lines if line.startswith("- [conversation")]
    assert "early" in body[0] and "late" in body[1]


def test_nothing_fits_gives_an_empty_context() -> None:
    packing = pack(scored(cand("facts", "f", "text " * 50)), budget=20, config=RecallConfig())
    assert packing.items == () and packing.context == "" and packing.tokens_used == 0


def test_a_non_additive_counter_is_rechecked_on_the_whole_text() -> None:
    def chars(text: str) -> int:  # counts newlines too: the sum of lines undercounts
        return len(text)

    config = RecallConfig(count_tokens=chars)
    items = scored(*(cand("conversation", f"t{i}", f"turn number {i}", r=0.9) for i in range(5)))
    line_costs = sum(chars(render_line(s, 1000)) for s in items)
    budget = line_costs + chars(SECTION_TITLES["conversation"])  # fits without the newlines
    packing = pack(items, budget=budget, config=config)
    assert chars(packing.context) <= budget
    assert len(packing.items) == 4 and packing.over_budget == 1


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["conversation", "facts", "insights", "experience"]),
            st.text(min_size=1, max_size=120),
            st.floats(0, 1),
            st.floats(0, 1),
        ),
        max_size=25,
    ),
    st.integers(20, 400),
)
def test_any_packing_fits_its_budget(
    raw: list[tuple[Layer, str, float, float]], budget: int
) -> None:
    cands = [cand(layer, f"id{i}", text, r, n) for i, (layer, text, r, n) in enumerate(raw)]
    kept, _ = deduplicate(score(cands, RecallConfig()), 0.8)
    packing = pack(kept, budget=budget, config=RecallConfig())
    assert estimate_tokens(packing.context) == packing.tokens_used <= budget
    assert len({i.id for i in packing.items}) == len(packing.items)
    assert [i.rank for i in packing.items] == list(range(1, len(packing.items) + 1))
    assert all(i.score >= RecallConfig().min_score for i in packing.items)


def test_scored_key_names_label_and_id() -> None:
    s = Scored(cand("facts", "u1", label="MemoryUnit"), 0.5)
    assert s.key == "MemoryUnit:u1"
    assert replace(s, duplicates=("Turn:t1",)).duplicates == ("Turn:t1",)
