"""One space holding every layer, built through the Python API from the files in examples/,
shared by this folder's tests (per engine: the embedded FalkorDB, and Neo4j when reachable)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from graphmem_neo4j.conversation.models import ForgettingConfig
from graphmem_neo4j.embedder import HashEmbedder
from graphmem_neo4j.insights.models import Step, TaskRecord
from graphmem_neo4j.insights.parsing import read_tasks
from graphmem_neo4j.items.service import ItemService, Write
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import dump_records
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store.embedded import EmbeddedServer
from tests.conftest import empty_neo4j

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples"
SPACE = "browse-demo"
ODD_SESSION = 'it\'s "odd"; => $x // {}'
"""A session id that tries to break out of a Cypher literal and a Browser command."""


CAROL_CHAIN = [
    {
        "id": "carol-home",
        "subject": "Carol",
        "relation": "lives_in",
        "object": "Turin",
        "category": "location",
        "valid_from": "2020-01-01",
    },
    {
        "id": "carol-commute",
        "subject": "Carol",
        "relation": "commutes_by",
        "object": "tram",
        "category": "activity",
        "valid_from": "2020-02-01",
        "depends_on": ["carol-home"],
    },
    {
        "id": "carol-stop",
        "subject": "Carol",
        "relation": "gets_off_at",
        "object": "Porta Nuova",
        "category": "activity",
        "valid_from": "2020-02-01",
        "depends_on": ["carol-commute"],
    },
    {
        "id": "carol-coffee",
        "subject": "Carol",
        "relation": "buys_coffee_at",
        "object": "the kiosk",
        "category": "habit",
        "valid_from": "2020-03-01",
        "depends_on": ["carol-stop"],
    },
    {
        "id": "carol-barista",
        "subject": "Carol",
        "relation": "knows",
        "object": "Gianni",
        "category": "person",
        "valid_from": "2020-04-01",
        "depends_on": ["carol-coffee"],
    },
]
"""A dependency chain four edges long: evidence paths stop at h = 3 hops."""


@dataclass
class Graph:
    """The space as `graphmem export` sees it: the ground truth the views are checked on."""

    nodes: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    """id → (label, properties)."""
    edges: list[tuple[str, str, str, dict[str, Any]]] = field(default_factory=list)
    """(type, source id, target id, properties)."""

    def label(self, label: str) -> dict[str, dict[str, Any]]:
        return {i: p for i, (lab, p) in self.nodes.items() if lab == label}

    def out(self, source: str, rel_type: str) -> list[str]:
        return [t for r, s, t, _ in self.edges if r == rel_type and s == source]

    def into(self, target: str, rel_type: str) -> list[str]:
        return [s for r, s, t, _ in self.edges if r == rel_type and t == target]

    def around(self, node: str, types: tuple[str, ...]) -> set[str]:
        return {t for r, s, t, _ in self.edges if r in types and s == node} | {
            s for r, s, t, _ in self.edges if r in types and t == node
        }

    def within(self, start: str, types: tuple[str, ...], hops: int) -> set[str]:
        """Nodes reachable in 1..hops steps along `types`, either direction."""
        reached: set[str] = set()
        frontier = {start}
        for _ in range(hops):
            frontier = {n for f in frontier for n in self.around(f, types)} - {start}
            reached |= frontier
        return reached


@dataclass
class Populated:
    memory: GraphMemory
    space: str
    graph: Graph
    settings: Settings


def write_odd_conversation(folder: Path) -> Path:
    path = folder / "odd.jsonl"
    rows = [
        {"session": ODD_SESSION, "turn_id": f"odd-{i}", "speaker": "Zoë", "text": text}
        for i, text in enumerate(
            ["Robert'); DROP TABLE turns; -- said hello.", "MATCH (n) DETACH DELETE n"]
        )
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


EXAMPLE_PACK = "alfworld"
"""The example tasks are ALFWorld's, too few for a space to learn their kinds from: as in the
walk-through of docs/insights.md, its domain pack reads them, so that a failure revises."""


def populate(memory: GraphMemory, space: str, folder: Path) -> None:
    """Every layer, through the services, with the paths that write optional properties:
    a search (access times), forgetting that prunes (Forgotten), facts that supersede, outdate
    and contest, tasks whose feedback revises an insight, explorations matched with experts."""
    conversation = memory.conversation
    conversation.ingest_file(EXAMPLES / "conversation.jsonl", space=space)
    conversation.ingest_file(write_odd_conversation(folder), space=space)
    conversation.search("What did Maya adopt, and when?", space=space)
    conversation.search("Biscuit", space=space, mode="sf")
    conversation.forget(space=space, config=ForgettingConfig(threshold=0.62, min_age_turns=0))
    memory.facts.add_file(EXAMPLES / "facts.jsonl", space=space)
    memory.facts.add_file(EXAMPLES / "facts_updates.jsonl", space=space)
    memory.facts.add_facts(CAROL_CHAIN, space=space)
    for name in ("tasks.jsonl", "tasks_more.jsonl"):
        tasks = read_tasks(EXAMPLES / name)
        memory.insights.record_tasks(
            tasks.tasks, space=space, source=tasks.source, lines=tasks.lines, learn=True
        )
    typed = TaskRecord(
        id="typed-1",
        query="water the basil on the windowsill",
        status="resolved",
        steps=(Step("water basil 1", "The soil is damp."),),
        task_type="watering",
    )
    memory.insights.record_tasks([typed], space=space, learn=True)
    experience = EXAMPLES / "experience"
    memory.experience.add_file(experience / "expert.jsonl", kind="expert", space=space)
    memory.experience.add_file(experience / "exploration.jsonl", kind="exploration", space=space)
    memory.recall("Where does Alice live?", space=space)
    memory.token_usage(space)  # the space's token counters are written
    ItemService(memory.parts).write(  # what GraphMemStore (LangGraph) writes
        space,
        [
            Write(("alice", "memories"), "m1", {"content": "Alice likes tea"}, "Alice likes tea"),
            Write(("alice", "prefs"), "p1", {"lang": "en", "n": 2}, None),
        ],
    )


def read_graph(memory: GraphMemory, space: str) -> Graph:
    graph = Graph()
    for record in dump_records(memory, space):
        if record["kind"] == "node":
            assert record["id"] not in graph.nodes, f"id {record['id']} is not unique"
            graph.nodes[record["id"]] = (record["label"], record["props"])
        else:
            graph.edges.append(
                (record["type"], record["source"], record["target"], record["props"])
            )
    return graph


@pytest.fixture(scope="module", params=["falkordb", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def populated(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Populated]:
    if request.param == "falkordb":
        server: EmbeddedServer = request.getfixturevalue("falkordb_server")
        settings = Settings(
            home=server.home,
            database=f"browse_{uuid.uuid4().hex[:10]}",
            embedder="hash",
            llm="none",
            domain_pack=EXAMPLE_PACK,
        )
        space = SPACE
    else:
        uri, user, password = request.getfixturevalue("neo4j_uri")
        empty_neo4j(uri, user, password)
        settings = Settings(
            uri=uri,
            user=user,
            password=password,
            embedder="hash",
            llm="none",
            domain_pack=EXAMPLE_PACK,
        )
        space = f"{SPACE}-{uuid.uuid4().hex[:8]}"
    with GraphMemory(settings, embedder=HashEmbedder(256)) as memory:
        populate(memory, space, tmp_path_factory.mktemp("browse-input"))
        yield Populated(memory, space, read_graph(memory, space), settings)


def node_ids(value: Any) -> set[str]:
    """Ids of the graphmem nodes in a query result, whatever form the engine returns them in
    (property maps, FalkorDB paths, the Neo4j driver's path and relationship tuples)."""
    found: set[str] = set()
    if isinstance(value, dict):
        if "space" in value and "id" in value:
            found.add(str(value["id"]))
        return found
    if isinstance(value, list | tuple):
        for item in value:
            found |= node_ids(item)
        return found
    nodes = getattr(value, "nodes", None)
    if callable(nodes):  # a FalkorDB Path
        for node in nodes():
            found |= node_ids(dict(node.properties))
    return found
