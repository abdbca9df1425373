"""neomodel against a live Neo4j holding every layer: each OGM class reads back exactly what
the services wrote (every property, with its type), and the writes the services own are
refused while the editable ones are stored."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest

from graphmem_neo4j import ogm

from .conftest import Populated


@pytest.fixture(scope="module")
def live(populated: Populated) -> Iterator[Populated]:
    ogm.connect(populated.settings)
    yield populated
    from neomodel import db

    db.close_connection()


# Only the Neo4j side of the module-scoped `populated` fixture: neomodel speaks Bolt only.
pytestmark = [pytest.mark.neo4j, pytest.mark.parametrize("populated", ["neo4j"], indirect=True)]


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return (
            isinstance(a, int | float)
            and isinstance(b, int | float)
            and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)
        )
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def db_values(node: ogm.MemoryNode) -> dict[str, Any]:
    """The node's properties as neomodel inflated them, by their names in the graph."""
    defined = node.defined_properties(aliases=False, rels=False)
    values = {
        prop.get_db_property_name(name): getattr(node, name) for name, prop in defined.items()
    }
    return {key: value for key, value in values.items() if value is not None}


@pytest.mark.parametrize("cls", ogm.NODE_CLASSES, ids=lambda c: c.__label__)
def test_every_class_reads_back_what_the_services_wrote(live: Populated, cls: Any) -> None:
    label = cls.__label__
    nodes = list(cls.nodes.filter(space=live.space))
    if cls is ogm.Space:
        (row,) = live.memory.store.read("core/space_properties", {"space": live.space})
        expected = {live.space: row["props"] | {"id": live.space}}
    else:
        expected = {
            node_id: props | {"id": node_id}
            for node_id, (lab, props) in live.graph.nodes.items()
            if lab == label
        }
    assert expected, label
    assert {node.uid for node in nodes} == set(expected), label
    for node in nodes:
        got = db_values(node)
        want = {k: v for k, v in expected[node.uid].items() if v is not None} | {
            "space": live.space
        }
        assert set(got) == set(want), (label, node.uid, set(got) ^ set(want))
        wrong = {k: (got[k], want[k]) for k in got if not same(got[k], want[k])}
        assert not wrong, (label, node.uid, wrong)


def test_service_owned_writes_are_refused_and_editable_ones_stored(live: Populated) -> None:
    turn = next(iter(ogm.Turn.nodes.filter(space=live.space)))
    original = turn.text
    turn.text = "rewritten by a script"
    with pytest.raises(ogm.ServiceOwnedWrite, match=r"Turn\.text"):
        turn.save()
    turn.text = original
    with pytest.raises(ogm.ServiceOwnedWrite):
        turn.delete()
    with pytest.raises(ogm.ServiceOwnedWrite):
        ogm.Turn.create({"space": live.space, "uid": "new", "text": "x"})
    entity = next(iter(ogm.Entity.nodes.filter(space=live.space)))
    with pytest.raises(ogm.ServiceOwnedWrite):
        turn.mentions.connect(entity)
    before = turn.metadata_json
    turn.metadata_json = '{"reviewed": true}'
    turn.save()
    (again,) = ogm.Turn.nodes.filter(space=live.space, uid=turn.uid)
    assert again.metadata_json == '{"reviewed": true}'
    assert again.text == original
    again.metadata_json = before  # the module's other tests compare with the populated graph
    again.save()
