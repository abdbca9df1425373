"""The fixed vocabulary is consistent: no name defined twice, every relationship joins known
labels, every label and type can be exported and imported, every migration's queries exist."""

from __future__ import annotations

from collections import Counter

from graphmem_neo4j.queries import for_falkordb, load_query
from graphmem_neo4j.schema import LAYERS, labels, migrations, relationships
from graphmem_neo4j.schema_types import snake

RANGES = {
    "core": (1, 99),
    "conversation": (100, 199),
    "facts": (200, 299),
    "insights": (300, 399),
    "experience": (400, 499),
    "space_index": (500, 599),
    "items": (600, 699),
}


def test_no_label_or_relationship_type_is_defined_twice() -> None:
    label_names = Counter(label.name for layer in LAYERS for label in layer.labels)
    rel_names = Counter(rel.name for layer in LAYERS for rel in layer.relationships)
    assert [n for n, c in label_names.items() if c > 1] == []
    assert [n for n, c in rel_names.items() if c > 1] == []
    assert not set(label_names) & set(rel_names)


def test_relationships_join_known_labels() -> None:
    known = labels()
    for rel in relationships().values():
        assert rel.source in known, (rel.name, rel.source)
        assert rel.target in known, (rel.name, rel.target)


def test_every_label_and_type_has_its_import_query() -> None:
    for label in labels().values():
        for dialect in ("neo4j", "falkordb"):
            text = load_query(label.import_query, dialect)
            assert f":{label.name} " in text or f":{label.name}{{" in text, label.name
    for rel in relationships().values():
        for dialect in ("neo4j", "falkordb"):
            text = load_query(rel.import_query, dialect)
            assert f":{rel.name}" in text, rel.name
            assert f":{rel.source} " in text and f":{rel.target} " in text, rel.name


def test_embedding_labels_store_vectors_with_vecf32_on_falkordb() -> None:
    for label in labels().values():
        if label.embedding:
            assert "vecf32" in load_query(label.import_query, "falkordb"), label.name


NODE_IMPORT = """UNWIND $rows AS row
MERGE (n:{label} {{space: $space, id: row.id}})
SET n += row.props
RETURN count(n) AS written"""
NODE_IMPORT_WITH_VECTOR = """UNWIND $rows AS row
MERGE (n:{label} {{space: $space, id: row.id}})
SET n += row.props, n.embedding = null
WITH n, row
CALL {{
  WITH n, row
  WITH n, row WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
}}
RETURN count(n) AS written"""


def test_node_imports_are_one_query_in_two_shapes() -> None:
    """The node import files differ only by their label (Cypher cannot take a label as a
    parameter): one shape for labels with a vector, one without; one file for both engines."""
    for label in labels().values():
        template = NODE_IMPORT_WITH_VECTOR if label.embedding else NODE_IMPORT
        text = load_query(label.import_query, "neo4j")
        code = "\n".join(line for line in text.splitlines() if not line.startswith("//"))
        assert code.strip() == template.format(label=label.name), label.name
        assert load_query(label.import_query, "falkordb") == for_falkordb(text), label.name


def test_migrations_are_numbered_in_their_layer_range_and_their_queries_exist() -> None:
    for layer in LAYERS:
        low, high = RANGES[layer.layer]
        for migration in layer.migrations:
            assert low <= migration.number <= high, (layer.layer, migration.number)
            for query in migration.queries:
                assert load_query(query, "neo4j") and load_query(query, "falkordb")
            assert set(migration.unique) <= set(labels()), migration.unique
    assert len({m.number for m in migrations()}) == len(migrations())


def test_every_keyed_label_gets_a_unique_constraint() -> None:
    constrained = {label for m in migrations() for label in m.unique}
    keyed = {name for name, label in labels().items() if label.keyed}
    assert keyed <= constrained, keyed - constrained


def test_every_label_has_a_space_index() -> None:
    indexed = {query for m in migrations() for query in m.queries if query.startswith("space_")}
    for label in labels().values():
        text = load_query(f"space_index/{snake(label.name)}", "neo4j")
        assert f"space_index/{snake(label.name)}" in indexed, label.name
        assert f"(n:{label.name}) ON (n.space)" in text, label.name


def test_whole_space_queries_on_neo4j_seek_every_label() -> None:
    """Neo4j has no index without a label: the space-wide queries name every label (a label
    added to the registry but missing here would silently drop out of stats and dumps)."""
    for query in ("core/count_labels", "core/count_relationships", "core/export_space"):
        text = load_query(query, "neo4j")
        missing = [
            n
            for n in labels()
            if f"(n:{n} {{space: $space}})" not in text and f"(:{n} {{space: $space}})" not in text
        ]
        assert missing == [], (query, missing)
