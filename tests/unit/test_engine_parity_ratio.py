"""The interleaved phase's ratio of engine_parity.py: a p95 over a p95, per round and pooled,
with a paired bootstrap interval."""

from __future__ import annotations

import random

import pytest

from tests.benchmark_module import load_benchmark

parity = load_benchmark("engine_parity")


def test_a_uniformly_slower_engine_gets_its_factor_with_a_tight_interval() -> None:
    rng = random.Random(1)
    base = [[rng.uniform(30, 50) for _ in range(100)] for _ in range(3)]
    mine = [[1.25 * t for t in times] for times in base]
    r = parity.paired_ratio(mine, base, resamples=200)
    assert r["ratio"] == pytest.approx(1.25)
    assert r["rounds"] == pytest.approx([1.25, 1.25, 1.25])
    assert r["interval"] == pytest.approx((1.25, 1.25))
    assert r["p95"] == pytest.approx(1.25 * parity.pct([t for ts in base for t in ts], 0.95))


def test_each_round_is_its_own_ratio_and_the_interval_spans_the_noise() -> None:
    rng = random.Random(2)
    base = [[rng.uniform(30, 50) for _ in range(100)] for _ in range(2)]
    mine = [[t * rng.uniform(1.0, 1.6) for t in base[0]], [2.0 * t for t in base[1]]]
    r = parity.paired_ratio(mine, base, resamples=300)
    assert r["rounds"][1] == pytest.approx(2.0)
    assert r["rounds"][0] < 1.7
    low, high = r["interval"]
    assert low < r["ratio"] < high and high - low > 0.05
