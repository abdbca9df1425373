"""`graphmem export` / `graphmem import`: a portable JSONL dump of one space.

It is the migration path from the embedded engine to Neo4j (and back). Line 1 is a header,
then one line per node, one per relationship, and a footer with counts and a content hash
that does not depend on the engine or the space name.
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .conversation.stems import backfill_stems
from .deps import Parts
from .errors import InputError, SchemaMismatch, jsonl_records
from .schema import labels as known_labels
from .schema import read_state
from .schema import relationships as known_relationships
from .spaces import validate_space
from .store.params import check_params

FORMAT = "graphmem-export"
VERSION = 1
_SKIPPED_LABELS = ("Space",)  # implied by the header; re-created under the target space


@dataclass(frozen=True)
class DumpSummary:
    space: str
    nodes: int
    relationships: int
    sha256: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "space": self.space,
            "nodes": self.nodes,
            "relationships": self.relationships,
            "sha256": self.sha256,
        }


def _f32(value: Any) -> Any:
    """Round floats to float32, in properties too, so a hash survives FalkorDB's vecf32
    storage (Neo4j keeps the float64 a vector was computed in)."""
    if isinstance(value, float):
        return struct.unpack("f", struct.pack("f", value))[0]
    if isinstance(value, list):
        return [_f32(v) for v in value]
    if isinstance(value, dict):
        return {k: _f32(v) for k, v in value.items()}
    return value


def canonical(record: dict[str, Any]) -> str:
    clean = {k: _f32(v) for k, v in record.items()}
    return json.dumps(clean, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class ContentHash:
    """Order-independent hash over node and relationship records (space name excluded)."""

    def __init__(self) -> None:
        self._lines: list[str] = []

    def add(self, record: dict[str, Any]) -> None:
        self._lines.append(canonical(record))

    def hexdigest(self) -> str:
        digest = hashlib.sha256()
        for line in sorted(self._lines):
            digest.update(line.encode("utf-8"))
            digest.update(b"\n")
        return digest.hexdigest()


def _node_record(label: str, props: dict[str, Any]) -> dict[str, Any]:
    props = {k: v for k, v in props.items() if k != "space"}
    return {"kind": "node", "label": label, "id": props.pop("id"), "props": props}


# A node of these labels exists only with the edge of this type to it, written in the same
# transaction (a turn and its session's HAS_TURN).
OWNING_EDGE = {"Turn": "HAS_TURN"}


def dump_records(memory: Parts, space: str) -> Iterator[dict[str, Any]]:
    """Node then relationship records of a space, read in one query, as one consistent
    snapshot. Neo4j reads at read-committed isolation, so a writer's transaction that commits
    while the query runs can show part of itself: an edge from a node already read to a new
    node the query had passed (seen under load: HAS_TURN to a turn the dump lacked), or a new
    node whose owning edge (`OWNING_EDGE`) hangs off a node read before the commit (a turn
    without its session's HAS_TURN). Both are left out, with every edge of a node left out:
    the dump is then the graph without that transaction's new nodes and their edges."""
    memory.require_space(space)
    rows = [
        row
        for row in memory.store.read("core/export_space", {"space": space})
        if row["label"] not in _SKIPPED_LABELS
    ]
    rels: list[dict[str, Any]] = []
    for row in rows:
        for rel in row["rels"] or []:
            if rel is None:
                continue
            rels.append(
                {
                    "kind": "rel",
                    "type": rel["type"],
                    "source": row["props"]["id"],
                    "source_label": row["label"],
                    "target": rel["target"],
                    "target_label": rel["target_label"],
                    "props": dict(rel["props"] or {}),
                }
            )
    owned = {
        (r["target_label"], str(r["target"]))
        for r in rels
        if OWNING_EDGE.get(r["target_label"]) == r["type"]
    }
    read: set[tuple[str, str]] = set()
    for row in rows:
        key = (row["label"], str(row["props"]["id"]))
        if row["label"] in OWNING_EDGE and key not in owned:
            continue
        read.add(key)
        yield _node_record(row["label"], dict(row["props"]))
    rels = [
        r
        for r in rels
        if (r["target_label"], str(r["target"])) in read
        and (r["source_label"], str(r["source"])) in read
    ]
    rels.sort(key=lambda r: (r["type"], r["source"], r["target"], str(r["props"].get("id", ""))))
    yield from rels


def export_space(memory: Parts, space: str, out: IO[str]) -> DumpSummary:
    state = read_state(memory.store)
    header = {
        "kind": "header",
        "format": FORMAT,
        "version": VERSION,
        "space": space,
        "engine": memory.store.dialect,
        "embedding_model": state.embedding_model,
        "embedding_dimension": state.embedding_dimension,
    }
    out.write(json.dumps(header) + "\n")
    digest = ContentHash()
    counts = {"node": 0, "rel": 0}
    for record in dump_records(memory, space):
        digest.add(record)
        counts[record["kind"]] += 1
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
    summary = DumpSummary(space, counts["node"], counts["rel"], digest.hexdigest())
    footer = {"kind": "footer", **summary.as_dict()}
    out.write(json.dumps(footer) + "\n")
    return summary


def space_digest(memory: Parts, space: str) -> DumpSummary:
    """Counts and content hash of a space as it is stored now."""
    digest = ContentHash()
    counts = {"node": 0, "rel": 0}
    for record in dump_records(memory, space):
        digest.add(record)
        counts[record["kind"]] += 1
    return DumpSummary(space, counts["node"], counts["rel"], digest.hexdigest())


def _read_dump(path: Path) -> tuple[dict[str, Any], list[tuple[int, dict[str, Any]]]]:
    source = str(path)
    header: dict[str, Any] | None = None
    records: list[tuple[int, dict[str, Any]]] = []
    for number, record in jsonl_records(path):
        if not isinstance(record, dict) or "kind" not in record:
            raise InputError("expected an object with 'kind'", source=source, line=number)
        if header is None:
            if record.get("kind") != "header" or record.get("format") != FORMAT:
                raise InputError(
                    f"not a graphmem export (no '{FORMAT}' header)", source=source, line=number
                )
            header = record
            continue
        records.append((number, record))
    if header is None:
        raise InputError("empty file", source=source)
    return header, records


def _validate(records: list[tuple[int, dict[str, Any]]], source: str) -> None:
    node_labels = known_labels()
    rel_types = known_relationships()
    for number, record in records:
        kind = record.get("kind")
        if kind == "node":
            if record.get("label") not in node_labels or record["label"] in _SKIPPED_LABELS:
                raise InputError(
                    f"unknown node label {record.get('label')!r}",
                    source=source,
                    line=number,
                    field="label",
                )
            if not isinstance(record.get("id"), str) or not isinstance(record.get("props"), dict):
                raise InputError(
                    "a node needs a string 'id' and a 'props' object", source=source, line=number
                )
            _check_props(record, source, number, reserved=("space", "id"))
        elif kind == "rel":
            if record.get("type") not in rel_types:
                raise InputError(
                    f"unknown relationship type {record.get('type')!r}",
                    source=source,
                    line=number,
                    field="type",
                )
            rel = rel_types[record["type"]]
            if (record.get("source_label"), record.get("target_label")) != (rel.source, rel.target):
                raise InputError(
                    f"{rel.name} must go from {rel.source} to {rel.target}",
                    source=source,
                    line=number,
                )
            for end in ("source", "target"):
                if not isinstance(record.get(end), str):
                    raise InputError("expected a node id", source=source, line=number, field=end)
            if not isinstance(record.get("props"), dict):
                raise InputError("expected an object", source=source, line=number, field="props")
            if rel.keyed and not isinstance(record["props"].get("id"), str):
                raise InputError(
                    f"a {rel.name} relationship needs a string id (parallel ones are told "
                    "apart by it)",
                    source=source,
                    line=number,
                    field="props.id",
                )
            _check_props(record, source, number, reserved=("space",))
        elif kind != "footer":
            raise InputError(
                f"unknown record kind {kind!r}", source=source, line=number, field="kind"
            )


# Property keys are ours, snake_case: an export holds no other. A dump whose props named
# `space` or `id` would move a node into another tenant's space or rename it, so those are
# refused too (the space comes from the header or --space, the id from the record).
_PROPERTY_KEY = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


def _check_props(
    record: dict[str, Any], source: str, line: int, *, reserved: tuple[str, ...]
) -> None:
    props = record["props"]
    for key in props:
        if not isinstance(key, str) or not _PROPERTY_KEY.match(key) or key in reserved:
            raise InputError(
                f"property key {str(key)[:40]!r} is not one graphmem writes",
                source=source,
                line=line,
                field="props",
            )
    for key, value in props.items():
        problem = _unstorable(value)
        if problem is not None:
            raise InputError(problem, source=source, line=line, field=f"props.{key}")
    try:
        # values FalkorDB's client would mangle (NUL, NaN, huge integers, ...)
        check_params({"props": props, "id": record.get("id")}, "falkordb")
    except InputError as e:
        raise InputError(e.reason, source=source, line=line, field=e.field) from e


def _unstorable(value: Any) -> str | None:
    """Why neither engine could store `value` as a property, or None. A dump must load into
    either: Neo4j refuses maps, nulls inside lists, lists of lists and lists mixing strings,
    booleans and numbers (integers and floats together are fine: it stores floats); FalkorDB
    has no map properties."""
    if value is None or isinstance(value, bool | int | float | str):
        return None
    if isinstance(value, dict):
        return "a property cannot hold a map (store it as a JSON string)"
    if not isinstance(value, list):
        return f"a property cannot hold a {type(value).__name__}"
    kinds = set()
    for item in value:
        if item is None:
            return "a list property cannot hold null"
        if isinstance(item, list | dict):
            return "a list property holds only strings, numbers or booleans"
        kinds.add(
            "bool"
            if isinstance(item, bool)
            else "number"
            if isinstance(item, int | float)
            else "str"
            if isinstance(item, str)
            else type(item).__name__
        )
    if len(kinds) > 1:
        return f"a list property cannot mix {' and '.join(sorted(kinds))}"
    return None


def import_dump(
    memory: Parts,
    path: Path,
    *,
    space: str | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> DumpSummary:
    """Load a dump into `space` (default: the space it was exported from). Idempotent: nodes
    are merged on (space, id), keyed relationships on their id."""
    header, records = _read_dump(path)
    target = validate_space(space or str(header.get("space", "")), source=str(path))
    _validate(records, str(path))
    state = read_state(memory.store)
    dim = header.get("embedding_dimension")
    if (
        state.embedding_dimension is not None
        and dim is not None
        and (
            dim != state.embedding_dimension
            or header.get("embedding_model") != state.embedding_model
        )
    ):
        raise SchemaMismatch(
            f"{path} holds {dim}-d embeddings from '{header.get('embedding_model')}', this graph "
            f"{state.embedding_dimension}-d from '{state.embedding_model}'"
        )
    memory.ensure_space(target)
    batch = memory.defaults.batch_size
    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for _, record in records:
        if record["kind"] == "node":
            props = dict(record["props"])
            embedding = props.pop("embedding", None)
            by_label[record["label"]].append(
                {"id": record["id"], "props": props, "embedding": embedding}
            )
        elif record["kind"] == "rel":
            by_type[record["type"]].append(
                {"source": record["source"], "target": record["target"], "props": record["props"]}
            )
    for label, rows in by_label.items():
        query = known_labels()[label].import_query
        memory.store.write_batches(
            query, rows, batch_size=batch, params={"space": target}, on_batch=on_progress
        )
    for rel_type, rows in by_type.items():
        query = known_relationships()[rel_type].import_query
        memory.store.write_batches(
            query, rows, batch_size=batch, params={"space": target}, on_batch=on_progress
        )
    if "Session" in by_label:
        # The Space node is re-created, not imported: its participants come from the sessions.
        memory.store.write("conversation/stamp_space_speakers", {"space": target})
    if "Turn" in by_label:
        # A dump written before turns carried their full-text entries.
        backfill_stems(memory.store, spaces=[target])
    return space_digest(memory, target)
