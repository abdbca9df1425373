"""The FalkorDB store itself: values survive the client's `CYPHER k=v` text header exactly
(property-based), values it would mangle are refused before anything is sent, and concurrent
writers cannot make a relationship MERGE create a duplicate edge."""

from __future__ import annotations

import math
import os
import subprocess
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem_neo4j.errors import InputError
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import dump_records
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store import open_store
from graphmem_neo4j.store.embedded import EmbeddedServer
from graphmem_neo4j.store.falkordb_store import FalkorDBStore
from graphmem_neo4j.store.params import INT64_MAX, INT64_MIN
from graphmem_neo4j.store.write_lock import _HOST

SPACE = "values"


@pytest.fixture
def falkor(falkordb_server: EmbeddedServer, hash_embedder: Any) -> Iterator[GraphMemory]:
    """FalkorDB only: these tests probe its client's text parameter header."""
    settings = Settings(
        home=falkordb_server.home,
        database=f"values_{uuid.uuid4().hex[:10]}",
    )
    with GraphMemory(settings, embedder=hash_embedder) as memory:
        memory.ensure_space(SPACE)
        yield memory


def _stored(memory: GraphMemory, node_id: str) -> dict[str, Any]:
    for record in dump_records(memory, SPACE):
        if record["kind"] == "node" and record["id"] == node_id:
            return dict(record["props"])
    raise AssertionError(f"{node_id} not stored")


def _write(memory: GraphMemory, node_id: str, props: dict[str, Any]) -> None:
    memory.store.write(
        "portability/node_session",
        {"space": SPACE, "rows": [{"id": node_id, "props": props, "embedding": None}]},
    )


TRICKY = st.sampled_from(
    [
        "\\",
        '"',
        "'",
        "`",
        '\\\\"',
        "\\u0041",
        "\n",
        "\r",
        "\t",
        "\x01",
        "\x7f",
        "\u2028",
        "🙂",
        "é",
        "$x",
        "CYPHER a=1 ",
        "}) DETACH DELETE n //",
        "/*",
        "*/",
    ]
)
TEXT = st.lists(st.characters(exclude_categories=("Cs",), exclude_characters="\x00") | TRICKY)
SCALAR = (
    TEXT.map("".join)
    | st.integers(min_value=INT64_MIN, max_value=INT64_MAX)
    # (a double within 1e-15 of the largest reads back as inf, after the 15-digit rounding)
    | st.floats(min_value=-1e307, max_value=1e307)
    | st.booleans()
)
PROPS = st.dictionaries(
    # not the node's key properties: `SET n += props` with another `id` or `space` moves the
    # node away from what the test reads back
    st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True).filter(
        lambda key: key not in ("id", "space")
    ),
    SCALAR | st.lists(SCALAR, min_size=1, max_size=4),
    min_size=1,
    max_size=5,
)


def _same(got: Any, sent: Any) -> bool:
    """Equal, of the same type. A double is stored exactly but FalkorDB's reply prints 15
    significant digits (1000000000000001.0 reads back as 1e15): floats agree to 1e-14."""
    if type(got) is not type(sent):
        return False
    if isinstance(sent, list):
        return len(got) == len(sent) and all(_same(g, s) for g, s in zip(got, sent, strict=True))
    if isinstance(sent, float):
        return math.isclose(got, sent, rel_tol=1e-14, abs_tol=1e-300)
    return bool(got == sent)


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(props=PROPS)
def test_every_storable_value_round_trips_exactly(
    falkor: GraphMemory, props: dict[str, Any]
) -> None:
    _write(falkor, "n", props)
    stored = _stored(falkor, "n")
    for key, value in props.items():
        assert _same(stored[key], value), (key, stored[key], value)
    falkor.store.write(
        "portability/node_session",
        {
            "space": SPACE,
            "rows": [{"id": "n", "props": {k: None for k in props}, "embedding": None}],
        },
    )


@pytest.mark.parametrize(
    "value",
    ["nul \x00 byte", "half \ud800", math.nan, math.inf, INT64_MAX + 1, ["ok", -math.inf]],
    ids=repr,
)
def test_unstorable_values_are_refused_before_anything_is_written(
    falkor: GraphMemory, value: Any
) -> None:
    with pytest.raises(InputError) as caught:
        _write(falkor, "bad", {"fine": "yes", "text": value})
    assert caught.value.field is not None and "props.text" in caught.value.field
    assert all(r["id"] != "bad" for r in dump_records(falkor, SPACE))


def test_concurrent_relationship_merges_create_each_edge_once(falkor: GraphMemory) -> None:
    n = 150
    for label in ("session", "turn"):
        falkor.store.write(
            f"portability/node_{label}",
            {
                "space": SPACE,
                "rows": [{"id": f"{label}-{i}", "props": {}, "embedding": None} for i in range(n)],
            },
        )
    rows = [{"source": f"session-{i}", "target": f"turn-{i}", "props": {}} for i in range(n)]

    def writer() -> None:
        store = open_store(falkor.settings)
        try:
            for row in rows:  # one statement per edge: the most interleaving
                store.write("portability/rel_has_turn", {"space": SPACE, "rows": [row]})
        finally:
            store.close()

    threads = [threading.Thread(target=writer) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    edges = Counter(
        (r["source"], r["target"]) for r in dump_records(falkor, SPACE) if r["kind"] == "rel"
    )
    assert len(edges) == n and max(edges.values()) == 1


def _lock_key(store: FalkorDBStore) -> str:
    return store._write_lock.key


def test_a_write_waits_for_a_live_holder_and_takes_over_from_a_dead_one(
    falkor: GraphMemory,
) -> None:
    store = falkor.store
    assert isinstance(store, FalkorDBStore)
    client = store._client
    key = _lock_key(store)

    # a holder on this host whose process is gone (kill -9 mid-write): taken over at once
    gone = subprocess.Popen(["true"])
    gone.wait()
    client.execute("SET", key, f"{_HOST}:{gone.pid}:dead", "PX", 60_000)
    started = time.monotonic()
    _write(falkor, "after-dead-holder", {"v": 1})
    assert time.monotonic() - started < 30  # not the 60 s expiry

    # a live holder (our parent process, say): the write waits until it lets go
    client.execute("SET", key, f"{_HOST}:{os.getppid()}:alive", "PX", 60_000)
    threading.Timer(0.5, lambda: client.execute("DEL", key)).start()
    started = time.monotonic()
    _write(falkor, "after-live-holder", {"v": 2})
    assert time.monotonic() - started >= 0.4
    assert _stored(falkor, "after-live-holder")["v"] == 2
    assert client.execute("GET", key) is None  # released after the statement
