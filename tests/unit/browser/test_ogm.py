"""The OGM declares exactly the graph the schema registry describes, connects nowhere on
import, and refuses the writes the layer services own."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import neomodel
import pytest
from neo4j.graph import Graph, Node
from neomodel import ArrayProperty, FloatProperty, StringProperty

from graphmem_neo4j import ogm
from graphmem_neo4j.errors import ConfigError, NotFound
from graphmem_neo4j.queries import load_query
from graphmem_neo4j.schema import labels, relationships
from graphmem_neo4j.settings import Settings


def node_props(cls: type[ogm.MemoryNode]) -> dict[str, Any]:
    """Database property name → property object."""
    return {
        prop.get_db_property_name(name): prop
        for name, prop in cls.defined_properties(aliases=False, rels=False).items()
    }


def rel_definitions() -> list[tuple[str, str, str, str, Any]]:
    """(direction, type, this label, other label, model) of every relationship attribute."""
    found = []
    for cls in ogm.NODE_CLASSES:
        for rel in cls.defined_properties(aliases=False, properties=False).values():
            rel.lookup_node_class()
            d = rel.definition
            direction = "out" if d["direction"] == 1 else "in"
            found.append(
                (
                    direction,
                    d["relation_type"],
                    cls.__label__,
                    d["node_class"].__label__,
                    d["model"],
                )
            )
    return found


def test_importing_the_ogm_connects_nowhere_and_loads_no_model() -> None:
    code = (
        "import sys\n"
        "import graphmem_neo4j.ogm\n"
        "from neomodel import db\n"
        "print(db.driver is None, 'torch' in sys.modules, 'sentence_transformers' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False", "False"]


def test_one_class_per_label() -> None:
    assert sorted(c.__label__ for c in ogm.NODE_CLASSES) == sorted(labels())
    assert len({c.__name__ for c in ogm.NODE_CLASSES}) == len(ogm.NODE_CLASSES)


def test_relationship_types_and_directions_match_the_registry() -> None:
    registry = {(r.name, r.source, r.target) for r in relationships().values()}
    defs = rel_definitions()
    outgoing = {(t, a, b) for d, t, a, b, _ in defs if d == "out"}
    incoming = {(t, b, a) for d, t, a, b, _ in defs if d == "in"}
    assert outgoing == registry
    assert incoming <= registry
    models: dict[str, set[Any]] = {}
    for _, rel_type, _, _, model in defs:
        models.setdefault(rel_type, set()).add(model)
    assert all(len(m) == 1 for m in models.values()), models


def test_keyed_relationships_carry_their_id() -> None:
    defs = rel_definitions()
    for rel in relationships().values():
        model = next(m for _, t, _, _, m in defs if t == rel.name)
        has_id = model is not None and "id" in node_props(model)
        assert has_id == rel.keyed, rel.name


def test_every_node_class_has_space_id_caption_and_its_embedding() -> None:
    for cls in ogm.NODE_CLASSES:
        props = node_props(cls)
        label = labels()[cls.__label__]
        assert isinstance(props["space"], StringProperty) and props["space"].required
        assert isinstance(props["id"], StringProperty) and props["id"].required
        assert label.caption in props, cls.__label__
        if label.embedding:
            embedding = props["embedding"]
            assert isinstance(embedding, ArrayProperty)
            assert isinstance(embedding.base_property, FloatProperty)
        else:
            assert "embedding" not in props
        assert set(cls.EDITABLE) <= set(cls.defined_properties(aliases=False, rels=False))


def loaded(cls: type[ogm.MemoryNode], **props: Any) -> Any:
    """A node as neomodel inflates it from a Neo4j record."""
    node = Node(Graph(), "4:db:7", 7, [cls.__label__], {"space": "demo", "id": "n1", **props})
    return cls.inflate(node)


@pytest.fixture
def queries(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    calls: list[tuple[str, dict[str, Any]]] = []

    def cypher_query(query: str, params: dict[str, Any] | None = None, **_: Any) -> Any:
        calls.append((query, params or {}))
        return [[1]], None

    monkeypatch.setattr(neomodel.db, "cypher_query", cypher_query)
    return calls


def test_a_script_edits_only_the_editable_properties(queries: list[Any]) -> None:
    entity = loaded(ogm.Entity, name="Biscuit", type="thing", mention_count=6)
    assert str(entity) == "Biscuit"
    entity.save()
    assert queries == []  # nothing changed, nothing written
    entity.type = "pet"
    entity.save()
    ((query, params),) = queries
    assert query == load_query("browse/ogm_update", "neo4j")
    assert params == {"element_id": "4:db:7", "space": "demo", "props": {"type": "pet"}}
    assert entity.changes() == {}


def test_a_vanished_node_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(neomodel.db, "cypher_query", lambda *a, **k: ([[0]], None))
    unit = loaded(ogm.MemoryUnit, source="chat", status="active")
    unit.source = "HR record"
    with pytest.raises(NotFound):
        unit.save()


@pytest.mark.parametrize(
    ("cls", "attribute", "value"),
    [
        (ogm.MemoryUnit, "status", "superseded"),
        (ogm.Insight, "active", False),
        (ogm.Turn, "text", "rewritten"),
        (ogm.Entity, "space", "other"),
        (ogm.Entity, "uid", "e2"),
    ],
)
def test_service_owned_properties_are_refused(
    cls: type[ogm.MemoryNode], attribute: str, value: Any, queries: list[Any]
) -> None:
    node = loaded(cls)
    setattr(node, attribute, value)
    with pytest.raises(ogm.ServiceOwnedWrite, match=attribute):
        node.save()
    assert queries == []


def test_creating_deleting_and_connecting_are_refused(queries: list[Any]) -> None:
    with pytest.raises(ogm.ServiceOwnedWrite, match="add_turns"):
        ogm.Turn(space="demo", uid="t9", text="new").save()
    turn = loaded(ogm.Turn, speaker="Maya", text="Hello")
    with pytest.raises(ogm.ServiceOwnedWrite, match="forget"):
        turn.delete()
    with pytest.raises(ogm.ServiceOwnedWrite):
        turn.mentions.connect(loaded(ogm.Entity))
    with pytest.raises(ogm.ServiceOwnedWrite):
        turn.next.disconnect_all()
    with pytest.raises(ogm.ServiceOwnedWrite):
        ogm.Mention(surface="x").save()
    assert queries == []


def test_connect_needs_neo4j() -> None:
    with pytest.raises(ConfigError, match="GRAPHMEM_URI"):
        ogm.connect(Settings())
    with pytest.raises(ConfigError):
        ogm.neo4j_driver(Settings(uri="falkordb://localhost:6379"))


@pytest.mark.parametrize(
    ("uri", "password", "expected"),
    [
        ("neo4j://bob:pw@db:7687", None, ("neo4j://db:7687", ("bob", "pw"))),
        ("neo4j://db:7687", "secret", ("neo4j://db:7687", ("neo4j", "secret"))),
        ("bolt://db:7687", None, ("bolt://db:7687", None)),
    ],
)
def test_the_driver_takes_credentials_from_settings_or_the_uri(
    monkeypatch: pytest.MonkeyPatch, uri: str, password: str | None, expected: Any
) -> None:
    import neo4j

    seen: list[Any] = []
    monkeypatch.setattr(neo4j.GraphDatabase, "driver", lambda u, auth=None: seen.append((u, auth)))
    ogm.neo4j_driver(Settings(uri=uri, password=password))
    assert seen == [expected]
