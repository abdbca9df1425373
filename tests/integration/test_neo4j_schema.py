"""What only a real Neo4j shows about the schema: query plans, and bookkeeping under
concurrency."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import neo4j
import pytest

from graphmem_neo4j.conversation.models import TurnInput
from graphmem_neo4j.embedder import HashEmbedder
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import export_space, import_dump
from graphmem_neo4j.queries import queries_for
from graphmem_neo4j.schema import SYSTEM_LABELS, migrations
from graphmem_neo4j.settings import Settings
from tests.conftest import reset_neo4j

pytestmark = pytest.mark.neo4j

MAINTENANCE_SCANS = {"conversation/reembed_count", "core/embedded_not_on"}
"""`graphmem reembed` counts, once per run, every embedded node of a space or of the graph,
whatever its label: an administrative pass, not a query of the serving path."""
SOURCE_SCANS = {"migrate/graphiti_entities", "migrate/graphiti_episodes", "migrate/mem0_nodes"}
"""`graphmem migrate` reads all of another program's graph, which has no spaces."""
ALLOWED_SCANS = (
    {"core/list_spaces"}
    | MAINTENANCE_SCANS
    | SOURCE_SCANS
    | {q for m in migrations() for q in m.queries}
)
"""Listing every space, the two sets above, and migrations, which run once over every space (a
data migration such as conversation/schema_session_clock reads every node of its label by
design)."""
_DDL = re.compile(
    r"^\s*(CYPHER 25\s+)?(//[^\n]*\n\s*)*(CREATE|DROP|SHOW|CALL db\.await)", re.IGNORECASE
)
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


@pytest.fixture
def neo4j_settings(neo4j_uri: tuple[str, str, str]) -> Settings:
    uri, user, password = neo4j_uri
    reset_neo4j(uri, user, password)
    return Settings(uri=uri, user=user, password=password)


def _operators(plan: dict[str, object]) -> list[tuple[str, str]]:
    details = str(plan.get("args", {}).get("Details", ""))  # type: ignore[union-attr]
    found = [(str(plan["operatorType"]).split("@")[0], details)]
    for child in plan.get("children", []):  # type: ignore[union-attr]
        found += _operators(child)
    return found


def test_no_query_scans_a_label_or_the_whole_database(
    neo4j_settings: Settings, neo4j_uri: tuple[str, str, str]
) -> None:
    """With the migrations applied, every query Neo4j runs finds a space's nodes by an index
    seek: a label scan reads every tenant's nodes, an all-nodes scan the whole database."""
    with GraphMemory(neo4j_settings, embedder=HashEmbedder(64)) as memory:
        memory.init()
        search = memory.store.vector_space_filter  # the texts this server is sent
    uri, user, password = neo4j_uri
    scans: dict[str, list[str]] = {}
    with neo4j.GraphDatabase.driver(
        uri, auth=(user, password), notifications_min_severity="OFF"
    ) as driver:
        for name, text in queries_for("neo4j", search=search).items():
            if _DDL.match(text) or name in ALLOWED_SCANS:
                continue
            params = {p: None for p in _PARAM.findall(text)}
            plan = driver.execute_query("EXPLAIN " + text, params).summary.plan
            for operator, details in _operators(plan):
                label = details.split(":", 1)[1].split()[0] if ":" in details else ""
                if operator == "AllNodesScan" or (
                    operator == "NodeByLabelScan" and label not in SYSTEM_LABELS
                ):
                    scans.setdefault(name, []).append(f"{operator} {details}")
    assert scans == {}


def test_concurrent_inits_record_the_schema_once(neo4j_settings: Settings) -> None:
    """Six processes' first commands at once (one GraphMemory each): one GraphMemMeta node,
    each migration recorded once. Without the bootstrap constraints Neo4j's concurrent MERGEs
    each created their own node."""
    barrier = threading.Barrier(6)
    errors: list[BaseException] = []

    def init() -> None:
        try:
            with GraphMemory(neo4j_settings, embedder=HashEmbedder(64)) as memory:
                store = memory.store
                barrier.wait()
                memory.init()
                del store
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=init) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with GraphMemory(neo4j_settings, embedder=HashEmbedder(64)) as memory:
        meta = memory.store.read("core/get_meta")
        applied = [int(row["id"]) for row in memory.store.read("core/list_migrations")]
    assert len(meta) == 1
    assert sorted(applied) == [m.number for m in migrations()]


def test_warm_plans_every_layer_query_and_writes_nothing(neo4j_settings: Settings) -> None:
    """`graphmem neo4j start` warms a fresh server: every non-DDL query of the layers that
    ingest, search and recall run is planned (none fails to plan), and nothing is written."""
    from graphmem_neo4j.store.neo4j_store import WARM_LAYERS, Neo4jStore

    with GraphMemory(neo4j_settings, embedder=HashEmbedder(64)) as memory:
        memory.init()
        store = memory.store
        assert isinstance(store, Neo4jStore)
        store.write_batches(
            "portability/node_session",
            [{"id": "s1", "props": {}}],
            batch_size=1,
            params={"space": "warm"},
        )
        before = store.read("core/count_labels", {"space": "warm"})
        assert {"label": "Session", "count": 1} in before
        expected = [
            name
            for name in queries_for("neo4j")
            if name.split("/")[0] in WARM_LAYERS and not name.split("/")[1].startswith("schema_")
        ]
        assert len(expected) > 100
        assert store.warm() == len(expected)
        assert store.read("core/count_labels", {"space": "warm"}) == before


def test_turns_stored_without_full_text_entries_get_them(
    neo4j_settings: Settings, neo4j_uri: tuple[str, str, str]
) -> None:
    """Turns written before migration 105 (no `Turn.stems`) are not in Neo4j's full-text
    index; the migration's data step writes their entries, after which a word finds them."""
    turns = [
        TurnInput(session="s1", turn_id=f"t{i}", speaker="Ann", text=text)
        for i, text in enumerate(["I focused on the painting.", "We walked by the lake."])
    ]
    with GraphMemory(neo4j_settings, embedder=HashEmbedder(64)) as memory:
        memory.conversation.add_turns(turns, space="old", forget_every=0)
        uri, user, password = neo4j_uri
        with neo4j.GraphDatabase.driver(uri, auth=(user, password)) as driver:
            driver.execute_query("MATCH (t:Turn) REMOVE t.stems")

        def found(word: str) -> set[str]:
            hits = memory.conversation.search(word, space="old", mode="fulltext", touch=False)
            return {h.turn_id for h in hits.hits}

        assert found("focus") == set()
        (step,) = [m for m in migrations() if m.number == 105]
        assert step.data is not None
        assert step.data(memory.store) == 2
        assert found("focus") == {"t0"} and found("walking") == {"t1"}
        assert step.data(memory.store) == 0


def test_an_imported_dump_without_full_text_entries_gets_them_for_its_space_only(
    neo4j_settings: Settings, neo4j_uri: tuple[str, str, str], tmp_path: Path
) -> None:
    """A dump whose turns carry no `stems` (written before migration 105) is searchable by
    word once imported; turns of other spaces are left to the migration."""
    turns = [TurnInput(session="s1", turn_id="t0", speaker="Ann", text="I focused on it.")]
    with GraphMemory(neo4j_settings, embedder=HashEmbedder(64)) as memory:
        memory.conversation.add_turns(turns, space="src", forget_every=0)
        path = tmp_path / "dump.jsonl"
        with path.open("w", encoding="utf-8") as out:
            export_space(memory, "src", out)
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        for record in records:
            if record.get("label") == "Turn":
                record["props"].pop("stems")
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        uri, user, password = neo4j_uri
        with neo4j.GraphDatabase.driver(uri, auth=(user, password)) as driver:
            driver.execute_query("MATCH (t:Turn {space: 'src'}) REMOVE t.stems")

        def found(word: str, space: str) -> set[str]:
            hits = memory.conversation.search(word, space=space, mode="fulltext", touch=False)
            return {h.turn_id for h in hits.hits}

        import_dump(memory, path, space="copy")
        assert found("focus", "copy") == {"t0"}
        assert found("focus", "src") == set()
