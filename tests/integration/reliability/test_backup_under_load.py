"""Export while a writer is ingesting into the same space: every dump is a consistent snapshot
(no relationship to a node the dump lacks, no turn without its session), counts and content
hash in the footer match the records, and importing a dump reproduces exactly that hash."""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path
from typing import Any

from graphmem_neo4j import GraphMemory
from graphmem_neo4j.portability import export_space, import_dump, space_digest

TURNS_PER_BATCH = 20
BATCHES = 15


def _turns(batch: int) -> list[dict[str, Any]]:
    return [
        {
            "session": f"s{batch % 3}",
            "turn_id": f"b{batch}-t{i}",
            "speaker": "Ana" if i % 2 else "Ben",
            "text": f"Batch {batch} turn {i}: Ana met Ben in Lisbon on day {batch * 100 + i}.",
        }
        for i in range(TURNS_PER_BATCH)
    ]


def _records(dump: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in dump.splitlines() if line.strip()]


def test_exports_during_ingestion_are_consistent_snapshots(
    memory: GraphMemory, space: str, tmp_path: Path
) -> None:
    memory.add_turns(_turns(0), space=space)
    failures: list[BaseException] = []

    def write() -> None:
        try:
            for batch in range(1, BATCHES):
                memory.add_turns(_turns(batch), space=space)
        except BaseException as e:  # surfaced by the assertion below
            failures.append(e)

    writer = threading.Thread(target=write)
    writer.start()
    dumps: list[str] = []
    while writer.is_alive() or not dumps:
        out = io.StringIO()
        export_space(memory, space, out)
        dumps.append(out.getvalue())
    writer.join()
    assert not failures, failures

    turn_counts = []
    for n, dump in enumerate(dumps):
        records = _records(dump)
        footer = records[-1]
        nodes = {(r["label"], r["id"]) for r in records if r["kind"] == "node"}
        rels = [r for r in records if r["kind"] == "rel"]
        assert footer["nodes"] == len(nodes) and footer["relationships"] == len(rels), n
        dangling = [
            r
            for r in rels
            if (r["source_label"], r["source"]) not in nodes
            or (r["target_label"], r["target"]) not in nodes
        ]
        assert not dangling, f"dump {n}: {dangling[:3]}"
        turns = {id_ for label, id_ in nodes if label == "Turn"}
        in_session = {r["target"] for r in rels if r["type"] == "HAS_TURN"}
        assert turns == in_session, f"dump {n}: turns without their session"
        turn_counts.append(len(turns))

    assert turn_counts == sorted(turn_counts), "a later snapshot lost turns"
    assert len(dumps) >= 2, "no export overlapped the writer"

    # A snapshot taken mid-ingestion round-trips exactly.
    middle = dumps[len(dumps) // 2]
    path = tmp_path / "middle.jsonl"
    path.write_text(middle, encoding="utf-8")
    copy = f"{space}-copy"
    imported = import_dump(memory, path, space=copy)
    footer = _records(middle)[-1]
    assert imported.sha256 == footer["sha256"]
    assert space_digest(memory, copy).sha256 == footer["sha256"]

    # After the writer: everything it acknowledged is in the final export.
    final = io.StringIO()
    export_space(memory, space, final)
    final_turns = {r["id"] for r in _records(final.getvalue()) if r.get("label") == "Turn"}
    assert len(final_turns) == TURNS_PER_BATCH * BATCHES
