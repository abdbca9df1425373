"""Static checks over every Cypher file: each query is scoped to `$space`, and labels and
relationship types come only from the registry. (The integration test test_tenants.py proves
the same dynamically.)"""

from __future__ import annotations

import re

import pytest

from graphmem_neo4j.core_schema import SYSTEM_LABELS
from graphmem_neo4j.queries import Dialect, load_query, query_files
from graphmem_neo4j.schema import labels, relationships

# Schema bookkeeping outside any space (GraphMemMeta, GraphMemMigration), writer leases
# (GraphMemLock) and the list of spaces itself.
UNSCOPED = {
    "core/get_meta",
    "core/set_meta",
    "core/list_migrations",
    "core/record_migration",
    "core/list_spaces",
    "core/lock_take",
    "core/lock_release",
}
NODE = re.compile(r"(?<![\w\]])\((\w*)\s*(?::\s*(\w+))?\s*(\{[^}]*\})?\s*\)")
STEP = re.compile(
    r"\s*<?-\s*(?:\[[^\]]*\])?\s*->?\s*\((?P<var>\w*)\s*(?::\s*\w+)?\s*(?P<props>\{[^}]*\})?\s*\)"
)
LABEL = re.compile(r"\(\s*\w*\s*:\s*(\w+)")
REL_TYPE = re.compile(r"\[\s*\w*\s*:\s*(\w+)")


def _queries() -> list[tuple[str, Dialect]]:
    found: list[tuple[str, Dialect]] = []
    for name, _, dialect in query_files():
        found += [(name, d) for d in ((dialect,) if dialect else ("neo4j", "falkordb"))]
    return sorted(set(found))


def _code(name: str, dialect: Dialect) -> str:
    """The query without comments or string literals."""
    text = re.sub(r"//[^\n]*", "", load_query(name, dialect))
    text = re.sub(r"\bCALL\s*\(\s*\)", "CALL", text)  # `CALL () {`: a scope clause, no node
    return re.sub(r"'[^']*'", "''", text)


DATA_QUERIES = [
    (n, d)
    for n, d in _queries()
    if "/schema_" not in n and not n.startswith(("core/await_", "space_index/"))
]


def _scoped(var: str, props: str | None, code: str, before: str) -> bool:
    """(n {space: $space}), n.space = $space somewhere, or n bound earlier (by a pattern,
    UNWIND or WITH, which the check of that clause covers)."""
    if props and re.search(r"\bspace\s*:\s*\$space\b", props):
        return True
    if var and re.search(rf"\b{var}\.space\s*=\s*\$space\b", code):
        return True
    return bool(var) and re.search(rf"\b{var}\b", before) is not None  # Cypher binds first


def _path_after(code: str, start: int) -> list[re.Match[str]]:
    """The node patterns that follow a node over relationships: (a)-[..]->(b)<-[..]-(c)."""
    nodes = []
    while m := STEP.match(code, start):
        nodes.append(m)
        start = m.end()
    return nodes


def unscoped_patterns(code: str) -> list[str]:
    """The patterns of a query that reach no node scoped to $space. Relationships never join
    two spaces (every write and import MATCHes both ends in one space), so one scoped node
    scopes its whole connected pattern."""
    found = []
    for m in NODE.finditer(code):
        var, _, props = m.groups()
        before = code[: m.start()]
        if re.search(r"[-<>]\s*$", before):
            continue  # not the start of a pattern: its path is checked from its start
        path = _path_after(code, m.end())
        if any(_scoped(n.group("var"), n.group("props"), code, before) for n in path):
            continue
        if not _scoped(var, props, code, before):
            found.append(m.group(0))
    return found


@pytest.mark.parametrize(
    ("code", "unscoped"),
    [
        ("MATCH (t:Turn) RETURN t", ["(t:Turn)"]),
        ("MATCH (a:Turn)-[:NEXT]->(b) RETURN b", ["(a:Turn)"]),
        ("MATCH (n) WHERE n.id = $id DETACH DELETE n", ["(n)"]),
        ("MATCH (a {space: $space}), (b:Turn {id: $id}) RETURN a, b", ["(b:Turn {id: $id})"]),
        ("MATCH (s:Session {space: $space})-[:HAS_TURN]->(t:Turn) RETURN t", []),
        ("MATCH (x)<-[:R]-(y:Turn {space: $space, id: 1}) RETURN x", []),
        ("MATCH (n) WHERE n.space = $space RETURN n", []),
        ("MATCH (i {space: $space}) UNWIND [i] AS v MATCH (v)-[:R]->(w) RETURN w", []),
    ],
)
def test_the_scope_check_finds_unscoped_patterns(code: str, unscoped: list[str]) -> None:
    assert unscoped_patterns(code) == unscoped


@pytest.mark.parametrize(
    ("name", "dialect"), DATA_QUERIES, ids=[f"{n}.{d}" for n, d in DATA_QUERIES]
)
def test_every_query_is_scoped_to_its_space(name: str, dialect: Dialect) -> None:
    if name in UNSCOPED or name.startswith("core/list_"):
        return
    code = _code(name, dialect)
    assert "$space" in code, f"{name} does not filter on $space"
    assert unscoped_patterns(code) == [], name


def test_labels_and_types_in_cypher_come_from_the_registry() -> None:
    known_labels = set(labels()) | set(SYSTEM_LABELS)
    known_types = set(relationships())
    for name, dialect in _queries():
        code = _code(name, dialect)
        assert set(LABEL.findall(code)) <= known_labels, name
        assert set(REL_TYPE.findall(code)) <= known_types, name
