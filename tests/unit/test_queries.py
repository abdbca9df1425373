import re

import pytest

from graphmem_neo4j.errors import QueryNotFound
from graphmem_neo4j.queries import for_falkordb, load_query, queries_for, query_files


def test_variant_files_win_over_the_shared_file() -> None:
    neo = load_query("core/schema_space_key", "neo4j")
    falkor = load_query("core/schema_space_key", "falkordb")
    assert "CREATE CONSTRAINT" in neo
    assert "CREATE INDEX" in falkor and "CONSTRAINT" not in falkor


def test_shared_file_serves_both_dialects() -> None:
    assert load_query("core/get_meta", "neo4j") == load_query("core/get_meta", "falkordb")


@pytest.mark.parametrize(
    ("neo4j", "falkordb"),
    [
        ("SET n.embedding = toFloatList(row.embedding)", "SET n.embedding = vecf32(row.embedding)"),
        (
            "RETURN 2 * vector.similarity.cosine(u.embedding, toFloatList($v)) - 1 AS s",
            "RETURN 2 * (1 - vec.cosineDistance(u.embedding, vecf32($v)) / 2) - 1 AS s",
        ),
        (  # nested calls and a parenthesis in a string stay whole
            "RETURN vector.similarity.cosine(f(a, ')'), g(b)) AS x, ')' AS y",
            "RETURN (1 - vec.cosineDistance(f(a, ')'), g(b)) / 2) AS x, ')' AS y",
        ),
        ("RETURN n.toFloatListing AS x", "RETURN n.toFloatListing AS x"),
        (
            "WITH n, row CALL db.create.setNodeVectorProperty(n, 'embedding', row.vectors[0])",
            "WITH n, row SET n.embedding = vecf32(row.vectors[0])",
        ),
        (  # one per node, each with its own vector
            "CALL db.create.setNodeVectorProperty( s ,'embedding', f(row.a, ')'))\n"
            "CALL db.create.setNodeVectorProperty(u, 'vec', $v)",
            "SET s.embedding = vecf32(f(row.a, ')'))\nSET u.vec = vecf32($v)",
        ),
    ],
)
def test_a_shared_query_says_vectors_once_for_both_engines(neo4j: str, falkordb: str) -> None:
    assert for_falkordb(neo4j) == falkordb


def test_shared_vector_queries_reach_falkordb_rewritten() -> None:
    neo = load_query("recall/turn_similarity", "neo4j")
    assert "vector.similarity.cosine" in neo and "toFloatList($embedding)" in neo
    falkor = load_query("recall/turn_similarity", "falkordb")
    assert "vec.cosineDistance" in falkor and "vecf32($embedding)" in falkor
    assert "toFloatList" not in falkor and "vector.similarity" not in falkor


@pytest.mark.parametrize("name", ["core/nope", "nolayer", "../etc/passwd", "core/../x", "Core/X"])
def test_unknown_or_malformed_names_are_refused(name: str) -> None:
    with pytest.raises(QueryNotFound):
        load_query(name, "neo4j")


ONE_ENGINE = {
    "core/lock_take": "neo4j",
    "core/lock_release": "neo4j",
    "core/list_vector_indexes": "neo4j",
    "core/schema_drop_index": "neo4j",
    "core/vector_index_stats": "falkordb",
    "core/vector_index_probe": "falkordb",
}
"""Queries only one engine runs: FalkorDB's writer leases are Redis keys (write_lock.py); only
a Neo4j store rebuilds vector indexes with the space filter of vector SEARCH; only a FalkorDB
store rebuilds a vector index that orphaned vectors make answer short (falkordb_vectors.py)."""


def test_every_query_exists_for_both_engines() -> None:
    """A variant for one engine without a shared file or the other variant is a missing query
    (unless the query is one engine's own, listed above)."""
    names = {name for name, _, _ in query_files()}
    for name in names - set(ONE_ENGINE):
        assert load_query(name, "neo4j")
        assert load_query(name, "falkordb")
    for name, dialect in ONE_ENGINE.items():
        assert name in queries_for(dialect)
    both = names - set(ONE_ENGINE)
    assert set(queries_for("neo4j")) - set(ONE_ENGINE) == both
    assert set(queries_for("falkordb")) - set(ONE_ENGINE) == both


def test_no_query_builds_labels_from_input() -> None:
    """Labels and types are literal text in the files; a parameter can never name one."""
    dynamic = re.compile(r"[(\[]\s*\w*\s*:\s*\$|:\s*\$\(|\w+\s*:\s*\$\w+\s*[)\]]")
    for text in list(queries_for("neo4j").values()) + list(queries_for("falkordb").values()):
        assert not dynamic.search(text), text
        assert "apoc.create" not in text


def test_the_dynamic_label_check_would_catch_one() -> None:
    dynamic = re.compile(r"[(\[]\s*\w*\s*:\s*\$|:\s*\$\(|\w+\s*:\s*\$\w+\s*[)\]]")
    assert dynamic.search("MATCH (n:$($label)) RETURN n")
    assert dynamic.search("MERGE (a)-[r:$type]->(b)")
    assert not dynamic.search("MERGE (s:Space {space: $space, id: $space})")


def test_every_vector_index_query_and_index_has_a_search_form() -> None:
    """On a server with vector SEARCH every per-space index query filters by space inside the
    index and every vector index is created with `space` as its filter property; nothing
    else changes, and FalkorDB's text is untouched."""
    plain = queries_for("neo4j")
    search = queries_for("neo4j", search=True)
    changed = {name for name in plain if plain[name] != search[name]}
    lookups = {n for n, t in plain.items() if "db.index.vector.queryNodes" in t}
    indexes = {n for n, t in plain.items() if "CREATE VECTOR INDEX" in t}
    assert len(lookups) == 9 and len(indexes) == 9
    assert changed == lookups | indexes
    for name in changed:
        text = search[name]
        assert text.startswith("CYPHER 25\n"), name
        assert "db.index.vector.queryNodes" not in text, name
    for name in lookups:
        assert re.search(
            r"\bSEARCH (\w+) IN \(VECTOR INDEX \w+ FOR probe\.embedding "
            r"WHERE \1\.space = \$space LIMIT \$candidates\) SCORE AS score",
            search[name],
        ), name
    for name in indexes:
        assert re.search(
            r"FOR \((\w+):\w+\) ON \(\1\.embedding\)\nWITH \[\1\.space\]", search[name]
        ), name
    assert load_query("conversation/search_vector", "falkordb", search=True) == load_query(
        "conversation/search_vector", "falkordb"
    )


def test_vector_index_queries_name_every_vector_index_ddl() -> None:
    """What `graphmem init` recreates with the space filter: each vector index's own DDL."""
    from graphmem_neo4j.queries import vector_index_queries, with_vector_search

    found = vector_index_queries()
    assert found["turn_embedding"] == "conversation/schema_turn_vector"
    ddl = [n for n in queries_for("neo4j") if "VECTOR INDEX" in load_query(n, "neo4j")]
    assert sorted(found.values()) == sorted(n for n in ddl if "/schema_" in n)
    for name in found.values():
        assert "WITH [n.space]" in with_vector_search(load_query(name, "neo4j"))


def test_on_a_search_server_lookups_take_the_score_instead_of_reading_vectors() -> None:
    """SEARCH's SCORE is the exact cosine, so no rewritten lookup reads a candidate's stored
    vector to rescore it; a cosine of another node or another vector is left alone."""
    from graphmem_neo4j.queries import with_vector_search

    plain = queries_for("neo4j")
    search = queries_for("neo4j", search=True)
    lookups = {n for n, t in plain.items() if "db.index.vector.queryNodes" in t}
    for name in lookups:
        assert "vector.similarity.cosine(" in plain[name], name
        assert "vector.similarity.cosine(" not in search[name], name
    assert "similarity: 2 * c.score - 1}" in search["conversation/search_vector"]
    text = (
        "CALL db.index.vector.queryNodes('i', $candidates, probe.embedding)\n"
        "YIELD node AS n, score\n"
        "RETURN vector.similarity.cosine(m.embedding, probe.embedding) AS a,\n"
        "       vector.similarity.cosine(n.embedding, $other) AS b,\n"
        "       vector.similarity.cosine(n.embedding, probe.embedding) AS c"
    )
    assert with_vector_search(text).endswith(
        "RETURN vector.similarity.cosine(m.embedding, probe.embedding) AS a,\n"
        "       vector.similarity.cosine(n.embedding, $other) AS b,\n"
        "       score AS c"
    )
