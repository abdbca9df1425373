"""A facts space survives export and import (every label and type has its portability file)."""

from __future__ import annotations

import io
from pathlib import Path

from graphmem_neo4j.facts.schema import SCHEMA
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import export_space, import_dump, space_digest

from .conftest import graph

REPO = Path(__file__).resolve().parents[3]


def test_a_facts_space_round_trips(memory: GraphMemory, space: str, tmp_path: Path) -> None:
    memory.facts.add_file(REPO / "examples" / "facts.jsonl", space=space)
    memory.facts.add_file(REPO / "examples" / "facts_updates.jsonl", space=space)
    buffer = io.StringIO()
    original = export_space(memory, space, buffer)
    dump = tmp_path / "facts.jsonl"
    dump.write_text(buffer.getvalue())
    copy = space + "-copy"
    restored = import_dump(memory, dump, space=copy)
    assert (restored.nodes, restored.relationships, restored.sha256) == (
        original.nodes,
        original.relationships,
        original.sha256,
    )
    g = graph(memory, copy)
    assert {label.name for label in SCHEMA.labels} <= {label for label, _ in g.nodes}
    assert {rel.name for rel in SCHEMA.relationships} == {
        r["type"] for r in g.rels if r["type"] in {x.name for x in SCHEMA.relationships}
    }
    # the copy answers like the original
    assert memory.facts.ask("Where does Alice live?", space=copy).answer is not None
    import_dump(memory, dump, space=copy)
    assert space_digest(memory, copy).sha256 == original.sha256
