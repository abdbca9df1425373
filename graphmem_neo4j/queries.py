"""Loads named Cypher queries from the package's `cypher/` tree, picking the engine variant.

A shared file is Neo4j Cypher (it is linted as such); three engine differences are said
once, here, instead of in a `.falkordb.cypher` variant of every query that meets them:

    toFloatList(x)                  marks x as a vector: FalkorDB stores and compares vectors
                                    only as `vecf32(x)`; Neo4j keeps a list of floats
    vector.similarity.cosine(a, b)  Neo4j's (1 + cos) / 2; FalkorDB has the cosine distance,
                                    so it becomes (1 - vec.cosineDistance(a, b) / 2)
    CALL db.create.setNodeVectorProperty(n, 'p', x)
                                    stores vector x as 32-bit floats on Neo4j (a `SET` stores
                                    64-bit ones, twice the bytes every rescore reads); FalkorDB
                                    has no such procedure, and `SET n.p = vecf32(x)` does it

The rewrite is of fixed function names in the file's text: no value ever becomes query text.
A query that differs in anything else (vector index procedures, DDL, introspection) keeps its
`<name>.falkordb.cypher` variant.

A Neo4j server with Cypher 25's vector `SEARCH` clause (Neo4j 2026.02 and later) filters a
vector index by `space` inside the index. One more rewrite says that difference once, for the
Neo4j text of every query (`search=True`, chosen by the store from the server's version):

    CALL db.index.vector.queryNodes('<index>', $candidates, <vector>) YIELD node AS n, score
        becomes  MATCH (n) SEARCH n IN (VECTOR INDEX <index> FOR <vector>
                                        WHERE n.space = $space LIMIT $candidates) SCORE AS score
    CREATE VECTOR INDEX <index> IF NOT EXISTS FOR (n:<Label>) ON (n.embedding)
        gains    WITH [n.space]   (the index's filter property)
    vector.similarity.cosine(n.embedding, <vector>)       of the searched node n
        becomes  score   (and `h.n.embedding`, n held in a map h, becomes `h.score`)

and a query so rewritten runs as `CYPHER 25`. Every other query is sent unchanged. The last
rule holds because SEARCH's SCORE is the exact cosine, (1 + cos) / 2 to the last bit, where
`db.index.vector.queryNodes` on 5.26 gives the quantised index's (off by up to 0.012 for
random 384-d vectors and 0.23 for sparse 64-d ones): so on 2026 no lookup reads the 384 stored
floats of each candidate to rescore it (tests/integration/test_nearest.py checks the
similarities on each line; docs/neo4j.md, "Neo4j 2026").
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from importlib.abc import Traversable
from typing import Literal

from .errors import QueryNotFound

Dialect = Literal["neo4j", "falkordb"]
DIALECTS: tuple[Dialect, ...] = ("neo4j", "falkordb")
_NAME = re.compile(r"^[a-z][a-z0-9_]*/[a-z][a-z0-9_]*$")


def _root() -> Traversable:
    return resources.files("graphmem_neo4j.cypher")


@cache
def load_query(name: str, dialect: Dialect, *, search: bool = False) -> str:
    """Text of query `name` ("layer/query") for `dialect`: the variant if one exists, else the
    shared file; on Neo4j with `search`, in its vector SEARCH form (see above). Raises
    QueryNotFound for a name with no file."""
    if search and dialect == "neo4j":
        return with_vector_search(load_query(name, dialect))
    if not _NAME.match(name):
        raise QueryNotFound(f"bad query name {name!r}: expected 'layer/name'")
    layer, base = name.split("/")
    folder = _root() / layer
    variant = folder / f"{base}.{dialect}.cypher"
    if variant.is_file():
        return variant.read_text(encoding="utf-8")
    shared = folder / f"{base}.cypher"
    if shared.is_file():
        text = shared.read_text(encoding="utf-8")
        return for_falkordb(text) if dialect == "falkordb" else text
    raise QueryNotFound(f"no Cypher file for query {name!r} on {dialect}")


_VECTOR = re.compile(r"\btoFloatList\s*\(")
_INDEX_QUERY = re.compile(
    r"CALL\s+db\.index\.vector\.queryNodes\(\s*'(?P<index>\w+)'\s*,\s*\$candidates\s*,"
    r"\s*(?P<vector>[\w.$]+)\s*\)\s*YIELD\s+node\s+AS\s+(?P<node>\w+)\s*,\s*score\b"
)
_SEARCH = (
    r"MATCH (\g<node>)\nSEARCH \g<node> IN (VECTOR INDEX \g<index> FOR \g<vector>"
    r" WHERE \g<node>.space = $space LIMIT $candidates) SCORE AS score"
)
_INDEX_DDL = re.compile(
    r"(CREATE\s+VECTOR\s+INDEX\s+(?P<index>\w+)\s+IF\s+NOT\s+EXISTS\s+"
    r"FOR\s+\((?P<node>\w+):\w+\)\s+ON\s+\((?P=node)\.embedding\))"
)
_FILTERED = r"\1\nWITH [\g<node>.space]"


_SEARCHED_COSINE = (
    r"vector\.similarity\.cosine\(\s*(?P<holder>\w+\.)?{node}\.embedding\s*,\s*{vector}\s*\)"
)


def with_vector_search(text: str) -> str:
    """A Neo4j query as a server with vector SEARCH runs it (see the module's docstring)."""
    rewritten = _INDEX_DDL.sub(_FILTERED, _INDEX_QUERY.sub(_SEARCH, text))
    for lookup in _INDEX_QUERY.finditer(text):
        node, vector = re.escape(lookup["node"]), re.escape(lookup["vector"])
        cosine = _SEARCHED_COSINE.format(node=node, vector=vector)
        rewritten = re.sub(cosine, lambda m: f"{m['holder'] or ''}score", rewritten)
    return text if rewritten == text else f"CYPHER 25\n{rewritten}"


def vector_index_queries(dialect: Dialect = "neo4j") -> dict[str, str]:
    """index name → the query creating it, for every vector index the schema files create
    (what `Neo4jStore.add_space_filters` recreates with the space filter)."""
    found: dict[str, str] = {}
    for name, text in queries_for(dialect).items():
        if m := _INDEX_DDL.search(text):
            found[m["index"]] = name
    return found


_FALKORDB_INDEX_DDL = re.compile(
    r"CREATE\s+VECTOR\s+INDEX\s+FOR\s+\((?P<node>\w+):(?P<label>\w+)\)\s+ON\s+"
    r"\((?P=node)\.embedding\)"
)
_FALKORDB_INDEX_DROP = r"DROP VECTOR INDEX FOR (\g<node>:\g<label>) ON (\g<node>.embedding)"


@cache
def falkordb_vector_indexes() -> dict[str, str]:
    """label → the schema query creating its vector index on FalkorDB."""
    found: dict[str, str] = {}
    for name, text in queries_for("falkordb").items():
        if m := _FALKORDB_INDEX_DDL.search(text):
            found[m["label"]] = name
    return found


@cache
def uses_vector_index(name: str, dialect: Dialect) -> bool:
    """Whether a query asks a vector index (FalkorDB's procedure or Neo4j's)."""
    text = load_query(name, dialect)
    return "db.idx.vector.queryNodes" in text or "db.index.vector.queryNodes" in text


def falkordb_vector_index_drop(create_text: str) -> str:
    """The statement dropping the vector index that a FalkorDB schema query creates (its label
    comes from that file)."""
    m = _FALKORDB_INDEX_DDL.search(create_text)
    if m is None:
        raise QueryNotFound("not a query creating a FalkorDB vector index")
    return m.expand(_FALKORDB_INDEX_DROP)


_COSINE = re.compile(r"\bvector\.similarity\.cosine\s*\(")
_SET_VECTOR = re.compile(
    r"\bCALL\s+db\.create\.setNodeVectorProperty\s*\(\s*(\w+)\s*,\s*'(\w+)'\s*,"
)


def for_falkordb(text: str) -> str:
    """A shared (Neo4j) query as FalkorDB runs it (see the module's docstring)."""
    text = _VECTOR.sub("vecf32(", text)
    while m := _SET_VECTOR.search(text):
        close = _closing(text, text.index("(", m.start()))
        vector = text[m.end() : close].strip()
        text = f"{text[: m.start()]}SET {m[1]}.{m[2]} = vecf32({vector}){text[close + 1 :]}"
    while m := _COSINE.search(text):
        close = _closing(text, m.end() - 1)
        args = text[m.end() : close]
        text = f"{text[: m.start()]}(1 - vec.cosineDistance({args}) / 2){text[close + 1 :]}"
    return text


def _closing(text: str, start: int) -> int:
    """The index of the parenthesis closing the one at `start` (string literals skipped)."""
    depth, quote = 0, ""
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
    raise QueryNotFound(f"unbalanced parentheses after character {start} of a query")


def query_files() -> list[tuple[str, str, Dialect | None]]:
    """Every (query name, file name, dialect or None when shared) in the tree."""
    found: list[tuple[str, str, Dialect | None]] = []
    for layer in sorted(_root().iterdir(), key=lambda p: p.name):
        if not layer.is_dir() or layer.name.startswith(("_", ".")):
            continue
        for f in sorted(layer.iterdir(), key=lambda p: p.name):
            if not f.name.endswith(".cypher"):
                continue
            stem = f.name[: -len(".cypher")]
            dialect: Dialect | None = None
            for d in DIALECTS:
                if stem.endswith("." + d):
                    dialect = d
                    stem = stem[: -len(d) - 1]
            found.append((f"{layer.name}/{stem}", f"{layer.name}/{f.name}", dialect))
    return found


def queries_for(dialect: Dialect, *, search: bool = False) -> dict[str, str]:
    """name → text of every query this dialect runs (shared files plus its own variants)."""
    names = {name for name, _, d in query_files() if d in (None, dialect)}
    return {name: load_query(name, dialect, search=search) for name in sorted(names)}


def explained(text: str) -> str:
    """`text` planned but not run (Neo4j's `EXPLAIN`): what warming a server's plans sends."""
    return f"EXPLAIN {text}"
