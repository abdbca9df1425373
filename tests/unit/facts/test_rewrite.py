from itertools import permutations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem_neo4j.facts.models import MemoryUnit, UnitStatus
from graphmem_neo4j.facts.rewrite import (
    StatusChange,
    StoredUnit,
    SupporterRef,
    Version,
    noisy_or,
    plan_dependents,
    plan_relation_level,
    plan_slot,
    resolve_versions,
    validity,
)


def v(uid: str, obj: str, t: int, c: float = 0.8) -> Version:
    return Version(uid, obj, t, c)


def test_the_latest_value_wins_and_earlier_ones_close_at_its_start() -> None:
    states = resolve_versions([v("a", "paris", 10), v("b", "london", 20), v("c", "rome", 30)])
    assert states["c"].state == "current"
    assert (states["a"].state, states["a"].valid_to, states["a"].superseded_by) == (
        "superseded",
        20,
        "b",
    )
    assert (states["b"].valid_to, states["b"].superseded_by) == (30, "c")


def test_a_much_weaker_later_claim_stays_pending() -> None:
    states = resolve_versions([v("a", "paris", 10, 0.9), v("b", "london", 20, 0.4)])
    assert states["a"].state == "current"
    assert (states["b"].state, states["b"].contests) == ("pending", "a")


def test_the_margin_decides_a_close_call_between_hedged_claims() -> None:
    versions = [v("a", "paris", 10, 0.9), v("b", "london", 20, 0.65)]
    assert resolve_versions(versions, margin=0.3)["b"].state == "current"
    assert resolve_versions(versions, margin=0.2)["b"].state == "pending"


def test_a_confident_claim_always_replaces() -> None:
    versions = [v("a", "paris", 10, 0.99), v("b", "london", 20, 0.72)]
    assert resolve_versions(versions)["b"].state == "current"
    assert resolve_versions(versions, accept=0.8)["b"].state == "pending"


def test_confirmations_make_a_value_harder_to_overturn() -> None:
    alone = [v("a", "paris", 10, 0.8), v("x", "london", 30, 0.65)]
    assert resolve_versions(alone)["x"].state == "current"
    confirmed = [*alone, v("b", "paris", 20, 0.8)]
    states = resolve_versions(confirmed)
    assert states["x"].state == "pending"
    assert states["a"].same_value and states["a"].superseded_by == "b"


def test_repeated_weak_claims_accumulate_support() -> None:
    states = resolve_versions(
        [v("a", "paris", 10, 0.9), v("x", "london", 20, 0.5), v("y", "london", 30, 0.5)]
    )
    assert states["x"].state == "pending"
    assert states["y"].state == "current"  # 1 - 0.5 * 0.5 = 0.75 >= 0.9 - 0.2
    assert states["a"].superseded_by == "y"


def test_simultaneous_claims_let_the_stronger_win() -> None:
    states = resolve_versions([v("a", "paris", 10, 0.8), v("b", "london", 10, 0.75)])
    assert states["a"].state == "current" and states["b"].state == "superseded"


@given(
    st.lists(
        st.tuples(st.sampled_from(["paris", "london", "rome"]), st.floats(0.05, 1.0)),
        min_size=1,
        max_size=6,
    )
)
def test_the_fold_does_not_depend_on_arrival_order(claims: list[tuple[str, float]]) -> None:
    versions = [v(f"u{i}", obj, 10 * i, c) for i, (obj, c) in enumerate(claims)]
    expected = resolve_versions(versions)
    assert sum(1 for s in expected.values() if s.state == "current") == 1
    for order in list(permutations(versions))[:24]:
        assert resolve_versions(order) == expected


def test_noisy_or() -> None:
    assert noisy_or(0.5, 0.5) == 0.75
    assert noisy_or(0.0, 0.3) == pytest.approx(0.3)


def unit(
    uid: str, obj: str, t: int, status: str = "active", c: float = 0.8, **kw: object
) -> MemoryUnit:
    base: dict[str, object] = {
        "id": uid,
        "subject": "Alice",
        "relation": "lives_in",
        "object": obj,
        "category": "location",
        "context": None,
        "status": UnitStatus(status),
        "confidence": c,
        "valid_from": t,
        "valid_to": None,
        "recorded_at": t,
        "source": None,
        "text": f"Alice lives in {obj}",
        "subject_key": "alice",
        "relation_key": "lives_in",
        "object_key": obj,
        "category_key": "location",
        "context_key": None,
    }
    base.update(kw)
    return MemoryUnit(**base)  # type: ignore[arg-type]


def test_plan_slot_changes_only_what_differs() -> None:
    stored = [StoredUnit(unit("a", "paris", 10)), StoredUnit(unit("b", "london", 20, "pending"))]
    plan = plan_slot(stored, now=99)
    assert plan.changes == [
        StatusChange("a", UnitStatus.SUPERSEDED, 20, "b"),
        StatusChange("b", UnitStatus.ACTIVE, None),
    ]
    settled = [
        StoredUnit(unit("a", "paris", 10, "superseded", valid_to=20), superseded_by=("b",)),
        StoredUnit(unit("b", "london", 20)),
    ]
    assert plan_slot(settled, now=99).changes == []


def test_a_stale_supersedes_edge_is_a_change() -> None:
    stored = [
        StoredUnit(unit("a", "paris", 10, "superseded", valid_to=20), superseded_by=("c",)),
        StoredUnit(unit("b", "london", 20)),
    ]
    assert plan_slot(stored, now=99).changes == [StatusChange("a", UnitStatus.SUPERSEDED, 20, "b")]


def test_a_re_assertion_carries_dependents_over() -> None:
    stored = [StoredUnit(unit("a", "paris", 10)), StoredUnit(unit("b", "paris", 20, "pending"))]
    assert plan_slot(stored, now=99).transfers == {"a": "b"}


def test_a_current_unit_without_active_support_is_outdated() -> None:
    dead = StoredUnit(unit("d", "x", 15), supporters=(SupporterRef("s", "superseded", 40),))
    plan = plan_slot([dead], now=99)
    assert plan.changes == [StatusChange("d", UnitStatus.OUTDATED, 40)]


def test_validity_needs_one_active_supporter() -> None:
    assert validity(10, [], 99) == (UnitStatus.ACTIVE, None)
    assert validity(10, [("superseded", 30), ("active", None)], 99) == (UnitStatus.ACTIVE, None)
    assert validity(10, [("superseded", 30), ("superseded", 50)], 99) == (UnitStatus.OUTDATED, 50)
    assert validity(10, [("pending", None)], 99) == (UnitStatus.OUTDATED, 99)


def test_dependents_follow_their_supporters() -> None:
    only = StoredUnit(unit("d1", "x", 15), supporters=(SupporterRef("a", "active"),))
    backed = StoredUnit(
        unit("d2", "y", 15), supporters=(SupporterRef("a", "active"), SupporterRef("b", "active"))
    )
    revived = StoredUnit(
        unit("d3", "z", 15, "outdated", valid_to=20), supporters=(SupporterRef("c", "superseded"),)
    )
    history = StoredUnit(
        unit("d4", "w", 15, "superseded"), supporters=(SupporterRef("a", "active"),)
    )
    changes = plan_dependents(
        [only, backed, revived, history],
        effective={"a": (UnitStatus.SUPERSEDED, 20), "c": (UnitStatus.ACTIVE, None)},
        extra_supporters={},
        now=99,
    )
    assert changes == [
        StatusChange("d1", UnitStatus.OUTDATED, 20),
        StatusChange("d3", UnitStatus.ACTIVE, None),
    ]


def test_a_carried_over_supporter_keeps_a_dependent_active() -> None:
    d = StoredUnit(unit("d", "x", 15), supporters=(SupporterRef("a", "active"),))
    changes = plan_dependents(
        [d],
        effective={"a": (UnitStatus.SUPERSEDED, 20), "b": (UnitStatus.ACTIVE, None)},
        extra_supporters={"d": ["b"]},
        now=99,
    )
    assert changes == []


def test_relation_level_overwrites_every_active_value_of_the_relation() -> None:
    stored = [
        StoredUnit(unit("a", "paris", 10)),
        StoredUnit(unit("s", "nice", 12, context="summer", context_key="summer")),
        StoredUnit(unit("o", "rome", 5, "superseded")),
        StoredUnit(unit("n", "oslo", 8, "pending")),
    ]
    changes = plan_relation_level(stored, "n", at=8)
    assert changes == [
        StatusChange("a", UnitStatus.SUPERSEDED, 8, "n"),
        StatusChange("s", UnitStatus.SUPERSEDED, 8, "n"),
        StatusChange("n", UnitStatus.ACTIVE, None),
    ]
