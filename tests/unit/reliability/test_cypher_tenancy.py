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
    "core/set_embedding_model",
    # how many nodes per space still hold vectors from another model: counts, no space's data
    # (`graphmem reembed` switches the graph's model when none is left)
    "core/embedded_not_on",
    "core/list_migrations",
    "core/record_migration",
    "core/list_spaces",
    "core/lock_take",
    "core/lock_release",
    # the API keys of `graphmem serve`: outside every space, each naming its own (keys.py)
    "keys/create",
    "keys/by_hash",
    "keys/list",
    "keys/revoke",
    "keys/touch",
    # the size of the turn index every space shares: a count, no space's data (nearest.py)
    "conversation/indexed_turns",
    # FalkorDB's vector indexes, checked as a whole (store/falkordb_vectors.py): counts, and how
    # many nodes of any space an index gives near a fixed probe, never their data
    "core/vector_index_stats",
    "core/vector_index_probe",
}
# `graphmem migrate` reads another program's graph (Mem0's, Graphiti's), which has no spaces;
# these queries run only on that source, read-only (graphmem_neo4j/migrate/source.py).
SOURCE_READS = {
    "migrate/graphiti_edges",
    "migrate/graphiti_entities",
    "migrate/graphiti_episodes",
    "migrate/graphiti_mentions",
    "migrate/graphiti_reported",
    "migrate/mem0_nodes",
    "migrate/mem0_relationships",
    "migrate/source_counts",
}
# The labels and types of Graphiti's schema that those queries name (Mem0's are read generically).
SOURCE_LABELS = {"Episodic", "Saga", "Community"}
SOURCE_TYPES = {"RELATES_TO", "HAS_EPISODE"}
LABEL_COUNT = re.compile(r"\bCOUNT\s*\{\s*$")
NODE = re.compile(r"(?<![\w\]])\((\w*)\s*(?::\s*(\w+))?\s*(\{[^}]*\})?\s*\)")
STEP = re.compile(
    r"\s*<?-\s*(?:\[[^\]]*\])?\s*->?\s*\((?P<var>\w*)\s*(?::\s*\w+)?\s*(?P<props>\{[^}]*\})?\s*\)"
)
# a label or type expression: `:A`, `:A:B`, `:A|B`, `:A|:B`, `:A&B`, `:!A`
LABEL = re.compile(r"\(\s*\w*\s*:\s*(!?\w+(?:\s*[:|&]\s*!?\w+)*)")
REL_TYPE = re.compile(r"\[\s*\w*\s*:\s*(!?\w+(?:\s*\|\s*:?\s*!?\w+)*)")
CLAUSE = re.compile(
    r"\b(?:RETURN|WITH|MATCH|OPTIONAL|UNWIND|CALL|SET|MERGE|CREATE|DELETE|DETACH|REMOVE|"
    r"FOREACH|ORDER|LIMIT|SKIP|YIELD|UNION|ON)\b|[{}]"
)


def labels_in(code: str) -> set[str]:
    return {name for m in LABEL.finditer(code) for name in re.findall(r"\w+", m.group(1))}


def types_in(code: str) -> set[str]:
    return {name for m in REL_TYPE.finditer(code) for name in re.findall(r"\w+", m.group(1))}


BOOL = {"AND", "OR", "XOR", "NOT", "WHERE"}


def _depth(text: str) -> int:
    """Parentheses and brackets left open at the end of `text`."""
    return sum(text.count(c) for c in "([") - sum(text.count(c) for c in ")]")


def _filters_every_row(code: str, at: int) -> bool:
    """Whether the condition at `at` must hold for every row: it sits in a WHERE clause, at
    a level (the clause, or a parenthesised group of it) joined only by AND, not under NOT,
    and not inside a function call, a list or a CASE."""
    where = max((m.end() for m in re.finditer(r"\bWHERE\b", code[:at])), default=-1)
    if where < 0 or CLAUSE.search(code, where, at):
        return False
    if _depth(code[:where]) > 0:
        return False  # the WHERE of a list or pattern comprehension, or of any()/all()
    end = CLAUSE.search(code, at)
    clause = code[where : end.start() if end else len(code)]
    pos = at - where
    # the groups enclosing the condition, innermost last
    opened: list[int] = []
    for i, ch in enumerate(clause[:pos]):
        if ch in "([":
            opened.append(i)
        elif ch in ")]" and opened:
            opened.pop()
    starts = [0, *(i + 1 for i in opened)]
    for start in starts:
        call = re.search(r"(\w+)\s*\($", clause[:start])
        if start and (clause[start - 1] == "[" or (call and call.group(1).upper() not in BOOL)):
            return False  # a list, or the argument of a function
        # the text of this level: nested groups blanked out
        depth, level = 0, []
        for ch in clause[start:]:
            if ch in "([":
                depth += 1
            elif ch in ")]":
                if depth == 0:
                    break
                depth -= 1
            level.append(ch if depth == 0 else " ")
        text = "".join(level)
        if re.search(r"\b(?:OR|XOR|CASE)\b", text, re.I):
            return False
    head = clause[:pos]
    return re.search(r"\bNOT\s*\(*\s*$", head, re.I) is None


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
    if var and any(
        _filters_every_row(code, m.start())
        for m in re.finditer(rf"\b{var}\.space\s*=\s*\$space\b", code)
    ):
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
    scopes its whole connected pattern. A label's count, `COUNT { (:Label) }`, reads no node
    (the vector lookups' bound on their shared index, nearest.py)."""
    found = []
    for m in NODE.finditer(code):
        var, _, props = m.groups()
        before = code[: m.start()]
        if re.search(r"[-<>]\s*$", before):
            continue  # not the start of a pattern: its path is checked from its start
        if (
            LABEL_COUNT.search(before)
            and not var
            and not props
            and code[m.end() :].lstrip()[:1] == "}"
        ):
            continue
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
        # a filter on the space is no scope unless every row must pass it
        ("MATCH (n) WHERE n.space = $space OR n.shared RETURN n", ["(n)"]),
        ("MATCH (n) WHERE n.id = $id AND (n.space = $space OR $all) RETURN n", ["(n)"]),
        ("MATCH (n) WHERE NOT n.space = $space RETURN n", ["(n)"]),
        ("MATCH (n) WHERE any(x IN [1] WHERE n.space = $space) RETURN n", ["(n)"]),
        ("MATCH (n) SET n.space = $space RETURN n", ["(n)"]),
        ("MATCH (n) WHERE n.id = $id AND (n.space = $space) RETURN n", []),
        ("MATCH (n) WHERE n.id = $id\n  AND n.space = $space RETURN n", []),
        # a label's count reads no node; a counted pattern with more to it is checked
        ("WITH COUNT { (:Turn) } AS n RETURN n", []),
        ("WITH COUNT { (t:Turn) WHERE t.x } AS n RETURN n", ["(t:Turn)"]),
        ("WITH COUNT { (:Turn {id: $id}) } AS n RETURN n", ["(:Turn {id: $id})"]),
    ],
)
def test_the_scope_check_finds_unscoped_patterns(code: str, unscoped: list[str]) -> None:
    assert unscoped_patterns(code) == unscoped


@pytest.mark.parametrize(
    ("name", "dialect"), DATA_QUERIES, ids=[f"{n}.{d}" for n, d in DATA_QUERIES]
)
def test_every_query_is_scoped_to_its_space(name: str, dialect: Dialect) -> None:
    if name in UNSCOPED or name in SOURCE_READS or name.startswith("core/list_"):
        return
    code = _code(name, dialect)
    assert "$space" in code, f"{name} does not filter on $space"
    assert unscoped_patterns(code) == [], name


@pytest.mark.parametrize(
    ("code", "found_labels", "found_types"),
    [
        ("MATCH (a:Turn)-[:NEXT|BOGUS]->(b) RETURN b", {"Turn"}, {"NEXT", "BOGUS"}),
        (
            "MATCH (a)-[r:NEXT | :BOGUS*1..2]->(b:Entity:Bogus) RETURN b",
            {"Entity", "Bogus"},
            {"NEXT", "BOGUS"},
        ),
        ("MATCH (a:Turn|Bogus {space: $space}) RETURN a", {"Turn", "Bogus"}, set()),
    ],
)
def test_every_label_and_type_of_a_pattern_is_read(
    code: str, found_labels: set[str], found_types: set[str]
) -> None:
    assert labels_in(code) == found_labels
    assert types_in(code) == found_types


def test_labels_and_types_in_cypher_come_from_the_registry() -> None:
    known_labels = set(labels()) | set(SYSTEM_LABELS)
    known_types = set(relationships())
    for name, dialect in _queries():
        code = _code(name, dialect)
        source = SOURCE_LABELS if name in SOURCE_READS else set()
        source_types = SOURCE_TYPES if name in SOURCE_READS else set()
        assert labels_in(code) <= known_labels | source, name
        assert types_in(code) <= known_types | source_types, name
