"""What the services really write, held against the OGM and the Browser captions: every
property key the layers store is declared by the OGM with a compatible type (and nothing else
is), every node inflates into its class, and every caption reads as text."""

from __future__ import annotations

import re
from typing import Any

import pytest
from neo4j.graph import Graph as DriverGraph
from neo4j.graph import Node
from neomodel import ArrayProperty, BooleanProperty, FloatProperty, IntegerProperty, StringProperty

from graphmem_neo4j import ogm
from graphmem_neo4j.browse import NODE_STYLES, render_caption
from graphmem_neo4j.schema import labels, relationships

from .conftest import Populated

NOT_IN_THE_SCENARIO: dict[str, set[str]] = {}
"""label or type → declared properties the populated scenario does not write. Empty: every
declared property is written by some step of `populate`."""


def declared(cls: Any) -> dict[str, Any]:
    return {
        prop.get_db_property_name(name): prop
        for name, prop in cls.defined_properties(aliases=False, rels=False).items()
    }


def compatible(prop: Any, value: Any) -> bool:
    if isinstance(prop, ArrayProperty):
        return isinstance(value, list) and all(compatible(prop.base_property, v) for v in value)
    if isinstance(prop, BooleanProperty):
        return isinstance(value, bool)
    if isinstance(prop, IntegerProperty):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(prop, FloatProperty):
        return isinstance(value, int | float) and not isinstance(value, bool)
    if isinstance(prop, StringProperty):
        return isinstance(value, str)
    raise AssertionError(f"unexpected property class {type(prop).__name__}")


def written(items: list[dict[str, Any]]) -> dict[str, list[Any]]:
    keys: dict[str, list[Any]] = {}
    for props in items:
        for key, value in props.items():
            keys.setdefault(key, []).append(value)
    return keys


def rel_models() -> dict[str, Any]:
    found: dict[str, Any] = {}
    for cls in ogm.NODE_CLASSES:
        for rel in cls.defined_properties(aliases=False, properties=False).values():
            found[rel.definition["relation_type"]] = rel.definition["model"]
    return found


def test_every_label_and_type_occurs_in_the_scenario(populated: Populated) -> None:
    graph = populated.graph
    present = {label for label, _ in graph.nodes.values()}
    assert present == set(labels()) - {"Space"}  # the export leaves the Space node implicit
    assert {row["id"] for row in populated.memory.spaces()} >= {populated.space}
    assert {r for r, _, _, _ in graph.edges} == set(relationships())


def test_the_space_node(populated: Populated) -> None:
    """Space is implicit in an export: every property the services wrote on it (its creation
    time and the token counters of a recall) is declared, with a compatible type."""
    (row,) = populated.memory.store.read("core/space_properties", {"space": populated.space})
    stored = row["props"]
    assert {"created_at", "recall_calls", "llm_calls"} <= set(stored)
    props = declared(ogm.Space)
    assert set(props) == set(stored)
    for key, value in stored.items():
        assert compatible(props[key], value), (key, value)


EXPORTED = [c for c in ogm.NODE_CLASSES if c is not ogm.Space]


@pytest.mark.parametrize("cls", EXPORTED, ids=lambda c: c.__label__)
def test_node_properties_are_exactly_the_declared_ones(populated: Populated, cls: Any) -> None:
    label = cls.__label__
    nodes = [props for lab, props in populated.graph.nodes.values() if lab == label]
    keys = written(nodes)
    props = declared(cls)
    expected = set(props) - {"space", "id"} - NOT_IN_THE_SCENARIO.get(label, set())
    assert set(keys) == expected, (
        f"{label}: written but not declared {sorted(set(keys) - set(props))}, "
        f"declared but not written {sorted(expected - set(keys))}"
    )
    for key, values in keys.items():
        bad = [v for v in values if not compatible(props[key], v)]
        assert not bad, (label, key, bad[:3])


@pytest.mark.parametrize("rel_type", sorted(relationships()))
def test_relationship_properties_are_exactly_the_declared_ones(
    populated: Populated, rel_type: str
) -> None:
    items = [p for r, _, _, p in populated.graph.edges if r == rel_type]
    keys = written(items)
    model = rel_models()[rel_type]
    props = declared(model) if model is not None else {}
    assert set(keys) == set(props) - NOT_IN_THE_SCENARIO.get(rel_type, set()), rel_type
    for key, values in keys.items():
        assert all(compatible(props[key], v) for v in values), (rel_type, key)


def as_driver_node(label: str, node_id: str, props: dict[str, Any], space: str) -> Node:
    return Node(
        DriverGraph(), f"4:x:{node_id}", 0, [label], {"space": space, "id": node_id, **props}
    )


_WORD = re.compile(r"[^\W\d_]{2,}")


def test_every_node_inflates_and_its_caption_reads_as_text(populated: Populated) -> None:
    classes = {cls.__label__: cls for cls in ogm.NODE_CLASSES}
    for node_id, (label, props) in populated.graph.nodes.items():
        node = classes[label].inflate(as_driver_node(label, node_id, props, populated.space))
        assert node.uid == node_id and node.space == populated.space
        caption = str(node)
        assert caption == render_caption(NODE_STYLES[label].caption, {"id": node_id, **props})
        assert _WORD.search(caption), (label, node_id, caption)
        assert " ·  · " not in f" {caption} " and not caption.endswith("· "), caption


def caption_of(populated: Populated, node_id: str) -> str:
    label, props = populated.graph.nodes[node_id]
    return render_caption(NODE_STYLES[label].caption, {"id": node_id, **props})


def test_captions_say_what_the_issue_asks(populated: Populated) -> None:
    graph = populated.graph
    for turn_id, turn in graph.label("Turn").items():
        first_words = " ".join(turn["text"].split()[:3])
        assert caption_of(populated, turn_id).startswith(f"{turn['speaker']} · {first_words}")
    for entity_id, entity in graph.label("Entity").items():
        assert caption_of(populated, entity_id) == entity["name"]
    for unit_id, unit in graph.label("MemoryUnit").items():
        caption = caption_of(populated, unit_id)
        relation = unit["relation"].replace("_", " ")
        assert caption.startswith(f"{unit['subject']} {relation} {unit['object']}"), caption
        assert caption.endswith(unit["status"])
    for insight_id, insight in graph.label("Insight").items():
        assert caption_of(populated, insight_id).startswith(insight["text"][:20])
    for action_id, action in graph.label("Action").items():
        assert caption_of(populated, action_id) == action["raw"]
    assert caption_of(populated, "alice-home-2019").endswith("· superseded")
