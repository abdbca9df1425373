from __future__ import annotations

from dataclasses import replace

from graphmem_neo4j.conversation.forgetting import NodeStats, due, importance, select
from graphmem_neo4j.conversation.models import ForgettingConfig

CFG = ForgettingConfig()


def node(**kw: object) -> NodeStats:
    base: dict[str, object] = {
        "id": "n",
        "label": "Entity",
        "created_turn": 0,
        "last_turn": 0,
        "access_count": 0,
        "degree": 1,
    }
    base.update(kw)
    return NodeStats(**base)  # type: ignore[arg-type]


def test_each_factor_raises_importance() -> None:
    clock = 5000
    old = importance(node(), clock, CFG)
    assert importance(node(last_turn=4900), clock, CFG) > old  # recency
    assert importance(node(access_count=3), clock, CFG) > old  # access frequency
    assert importance(node(degree=6), clock, CFG) > old  # degree centrality
    assert importance(node(created_turn=4500, last_turn=4500), clock, CFG) > importance(
        node(created_turn=0, last_turn=4500), clock, CFG
    )  # age
    assert 0.0 <= old <= 1.0
    assert (
        importance(
            node(last_turn=5000, created_turn=5000, access_count=100, degree=100), clock, CFG
        )
        > 0.99
    )


def test_select_prunes_below_threshold_past_the_grace_age_least_important_first() -> None:
    nodes = [
        node(id="lonely", degree=0),
        node(id="leaf", degree=1),
        node(id="hub", degree=50),
        node(id="used", degree=1, access_count=10),
        node(id="young", degree=0, created_turn=4950, last_turn=4950),
    ]
    chosen = select(nodes, 5000, CFG)
    assert [n.id for n, _ in chosen] == ["lonely", "leaf"]
    assert chosen[0][1] <= chosen[1][1]
    assert select(nodes, 5000, replace(CFG, threshold=0.0)) == []


def test_forgetting_is_due_every_n_turns() -> None:
    assert due(400, None, 400)
    assert not due(399, None, 400)
    assert not due(700, 400, 400)
    assert due(800, 400, 400)
    assert not due(10_000, None, 0)
