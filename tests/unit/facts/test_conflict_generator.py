"""The conflict benchmark's generator (benchmarks/facts_conflict_data.py): its gold labels
must follow from the facts it generates, or the benchmark measures nothing."""

from __future__ import annotations

import random
from types import ModuleType

import pytest

from tests.benchmark_module import load_benchmark


@pytest.fixture(scope="module")
def gen() -> ModuleType:
    return load_benchmark("facts_conflict_data")


def test_generation_is_seeded(gen: ModuleType) -> None:
    a = gen.Generator(3).scenarios(5)
    b = gen.Generator(3).scenarios(5)
    assert [sc.facts for sc in a] == [sc.facts for sc in b]
    assert [sc.facts for sc in a] != [sc.facts for sc in gen.Generator(4).scenarios(5)]


def test_gold_answers_follow_from_the_facts(gen: ModuleType) -> None:
    for sc in gen.Generator(1).scenarios(40):
        by_id = {f["id"]: f for f in sc.facts}
        assert len(by_id) == len(sc.facts)
        for q in sc.questions:
            assert q.gold_units and all(by_id[u]["object"] == q.gold for u in q.gold_units)
        if sc.kind == "dynamic":
            (q,) = sc.questions
            slot = [by_id[i] for i in sc.commuting]
            assert q.gold == max(slot, key=lambda f: f["valid_from"])["object"]
        if sc.kind == "static":
            (claim,) = (by_id[i] for i in sc.contested)
            (q,) = sc.questions
            base = next(by_id[u] for u in q.gold_units if by_id[u]["source"] == "registry")
            assert claim["object"] != q.gold and claim["valid_from"] > base["valid_from"]
            assert claim["confidence"] < base["confidence"] - 0.2
        if sc.kind == "conditional":
            assert len({q.text for q in sc.questions}) == len(sc.questions) == 3


def test_dependents_point_at_generated_units(gen: ModuleType) -> None:
    scenarios = gen.Generator(2).scenarios(40)
    assert any(sc.must_outdate for sc in scenarios) and any(sc.must_stay for sc in scenarios)
    for sc in scenarios:
        ids = {f["id"] for f in sc.facts}
        for f in sc.facts:
            assert set(f.get("depends_on", [])) <= ids
        assert set(sc.must_outdate + sc.must_stay + sc.contested + sc.commuting) <= ids


def test_permuted_orders_keep_supporters_first(gen: ModuleType) -> None:
    rng = random.Random(0)
    for sc in gen.Generator(5).scenarios(30):
        for _ in range(3):
            order = sc.permuted(rng)
            assert sorted(f["id"] for f in order) == sorted(f["id"] for f in sc.facts)
            seen: set[str] = set()
            for f in order:
                assert set(f.get("depends_on", [])) <= seen
                seen.add(f["id"])


def test_the_stream_interleaves_and_keeps_each_scenario_in_order(gen: ModuleType) -> None:
    scenarios = gen.Generator(6).scenarios(10)
    facts = gen.stream(scenarios, random.Random(1))
    assert len(facts) == sum(len(sc.facts) for sc in scenarios)
    position = {f["id"]: i for i, f in enumerate(facts)}
    for sc in scenarios:
        assert [position[f["id"]] for f in sc.facts] == sorted(position[f["id"]] for f in sc.facts)
    assert facts[:5] != [f for sc in scenarios for f in sc.facts][:5]
