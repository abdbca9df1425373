"""Export and import of an insights space: every label and relationship type of the layer
goes through its portability query and comes back identical."""

from pathlib import Path

from graphmem_neo4j.insights.schema import SCHEMA
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import export_space, import_dump, space_digest

from .conftest import graph, task


def populate(memory: GraphMemory, space: str) -> None:
    memory.insights.record_tasks(
        [
            task("s1", "heat some egg and put it on the table", actions=("go to fridge 1",)),
            task("s2", "heat a mug and put it on the table", actions=("go to cabinet 1",)),
        ],
        space=space,
    )
    old = memory.insights.add_insight("Heat it first.", space=space, evidence=["s1", "s2"]).id
    memory.insights.record_tasks(
        [task("f", "heat some potato and put it in the fridge", status="failed")], space=space
    )
    assert memory.insights.feedback("f", space=space).archived == (old,)
    memory.insights.record_tasks(
        [task("r", "heat some egg and put it on the table now", actions=("heat egg 1", "put"))],
        space=space,
    )
    assert memory.insights.feedback("r", space=space).plan.add.decision


def test_an_insights_space_survives_export_and_import(
    memory: GraphMemory, space: str, tmp_path: Path
) -> None:
    populate(memory, space)
    g = graph(memory, space)
    assert {label for label, _ in g.nodes} >= {label.name for label in SCHEMA.labels}
    assert {r["type"] for r in g.rels} == {rel.name for rel in SCHEMA.relationships}
    dump = tmp_path / "insights.jsonl"
    with dump.open("w", encoding="utf-8") as out:
        exported = export_space(memory, space, out)
    copy = space + "-copy"
    imported = import_dump(memory, dump, space=copy)
    assert (imported.nodes, imported.relationships, imported.sha256) == (
        exported.nodes,
        exported.relationships,
        exported.sha256,
    )
    again = import_dump(memory, dump, space=copy)
    assert again.sha256 == exported.sha256 and again.nodes == exported.nodes
    assert space_digest(memory, copy).relationships == exported.relationships
    # the copy works: its vectors are indexed and retrieval finds the same insights
    original = memory.insights.retrieve("heat some egg on the table", space=space)
    copied = memory.insights.retrieve("heat some egg on the table", space=copy)
    assert original.insights and copied.insights == original.insights
