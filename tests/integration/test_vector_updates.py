"""A stored vector is replaced when its node is written again with another one. FalkorDB 4.16
silently kept the old value when a vecf32 was assigned over an existing one (found by the
engine-parity test: a task re-embedded after its second run kept its first vector). And the
layers' vectors are stored as 32-bit floats on both engines."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np

from graphmem_neo4j.experience.parsing import parse_file
from graphmem_neo4j.items.service import ItemService, Write, item_id
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.nearest import nearest_one
from graphmem_neo4j.portability import dump_records, import_dump
from graphmem_neo4j.schema import labels

from .insights.conftest import task

DIM = 64
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def unit(rng: random.Random) -> list[float]:
    v = [rng.gauss(0, 1) for _ in range(DIM)]
    norm = math.sqrt(sum(x * x for x in v))
    return [x / norm for x in v]


def test_an_import_over_stored_nodes_replaces_their_vectors(
    memory: GraphMemory, space: str, tmp_path: Path
) -> None:
    memory.init()
    rng = random.Random(7)
    embedded = [label.name for label in labels().values() if label.embedding]

    def dump(vectors: dict[str, list[float]]) -> Path:
        path = tmp_path / "dump.jsonl"
        header = {"kind": "header", "format": "graphmem-export", "version": 1, "space": space}
        nodes = [
            {"kind": "node", "label": label, "id": f"{label}-1", "props": {"embedding": vector}}
            for label, vector in vectors.items()
        ]
        # A turn exists only with its session's HAS_TURN (an export leaves out one without).
        session = {"kind": "node", "label": "Session", "id": "Session-1", "props": {}}
        owns = {"kind": "rel", "type": "HAS_TURN", "source": "Session-1",
                "source_label": "Session", "target": "Turn-1", "target_label": "Turn",
                "props": {}}  # fmt: skip
        records = [header, *([] if "Session" in vectors else [session]), *nodes, owns]
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        return path

    import_dump(memory, dump({label: unit(rng) for label in embedded}), space=space)
    second = {label: unit(rng) for label in embedded}
    import_dump(memory, dump(second), space=space)
    stored = {
        r["label"]: r["props"]["embedding"]
        for r in dump_records(memory, space)
        if r["kind"] == "node" and r["label"] in embedded
    }
    for label in embedded:
        assert max(abs(a - b) for a, b in zip(stored[label], second[label], strict=True)) < 1e-6, (
            label
        )
        assert all(float(np.float32(x)) == x for x in stored[label]), label  # stored 32-bit
    assert any(float(np.float32(x)) != x for x in second[embedded[0]])  # given 64-bit


def test_a_turn_ingested_again_with_new_text_is_found_by_its_new_text(
    memory: GraphMemory, space: str
) -> None:
    memory.add_turns(
        [{"turn_id": "t1", "speaker": "Maya", "text": "I adopted a beagle."}], space=space
    )
    memory.add_turns(
        [{"turn_id": "t1", "speaker": "Maya", "text": "We sailed to the Azores in June."}],
        space=space,
    )
    vector = memory.embedder.embed(["Maya: We sailed to the Azores in June."])[0]
    hits = nearest_one(memory.store, "conversation/search_vector", vector, space=space, k=1)
    assert [h["id"] for h in hits] == ["t1"]
    assert hits[0]["similarity"] > 0.999


def test_every_layers_vectors_are_stored_as_32_bit_floats(memory: GraphMemory, space: str) -> None:
    # FalkorDB keeps vecf32; Neo4j keeps what db.create.setNodeVectorProperty writes (a `SET`
    # would keep 64-bit floats, twice the bytes a rescore reads: docs/neo4j.md).
    sample = memory.embedder.embed(["Maya adopted a beagle named Rex."])[0]
    assert any(float(np.float32(x)) != x for x in sample)  # the model's floats are 64-bit
    memory.add_turns(
        [{"turn_id": "t1", "speaker": "Maya", "text": "Maya adopted a beagle named Rex."}],
        space=space,
    )
    memory.insights.record_tasks(
        [task("q1", "heat some egg", actions=("heat egg 1",))], space=space
    )
    memory.insights.add_insight("Heat food before serving it.", space=space, evidence=["q1"])
    memory.facts.add_file(EXAMPLES / "facts.jsonl", space=space)
    memory.experience.add(
        parse_file(EXAMPLES / "experience" / "expert.jsonl", kind="expert"), space=space
    )
    ItemService(memory.parts).write(
        space,
        [
            Write(("notes",), "sailing", {"v": 1}, "We sailed to the Azores."),
            Write(("notes",), "unembedded", {"v": 2}, None),  # stored without a vector
        ],
    )
    wanted = ("Turn", "Entity", "Query", "Insight", "MemoryUnit", "Subject", "Category", "Task")
    stored = {
        (r["label"], r["id"]): r["props"].get("embedding")
        for r in dump_records(memory, space)
        if r["kind"] == "node" and r["label"] in (*wanted, "StoreItem")
    }
    assert {label for label, _ in stored} == {*wanted, "StoreItem"}
    items = {json.loads(i)[-1]: v for (label, i), v in stored.items() if label == "StoreItem"}
    assert items["unembedded"] is None
    for key, vector in stored.items():
        if key[1] != item_id(("notes",), "unembedded"):
            assert vector and all(float(np.float32(x)) == x for x in vector), key
