"""Selective forgetting (paper, Fig. 1 "retention stage") and bringing forgotten nodes back.

`forget` scores every Turn and Entity (forgetting.py), archives those below the threshold as
(:Forgotten) records with their properties and incident edges, then deletes them; `restore`
re-creates archived nodes and every edge whose other end still exists.
"""

from __future__ import annotations

import json
import secrets
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from ..errors import NotFound
from ..schema import labels as known_labels
from ..schema import now_ms
from ..schema import relationships as known_relationships
from . import forgetting
from .deps import Parts
from .models import ConversationConfig, ForgetReport, ForgettingConfig, RestoreReport
from .state import SpaceState


class Forgetter:
    def __init__(self, parts: Parts, config: ConversationConfig, state: SpaceState) -> None:
        self.parts = parts
        self.config = config
        self.state = state

    def forget(
        self,
        *,
        space: str,
        dry_run: bool = False,
        config: ForgettingConfig | None = None,
        archive: bool | None = None,
    ) -> ForgetReport:
        """Score every Turn and Entity and prune those below the threshold, with their
        incident edges. With `archive` (default) each pruned node is kept as a (:Forgotten)
        record that `restore` brings back. `dry_run` reports without changing anything."""
        cfg = config or self.config.forgetting
        if archive is not None:
            cfg = replace(cfg, archive=archive)
        self.parts.require_space(space)
        store = self.parts.store
        clock = self.state.facts(space).clock
        stats: list[forgetting.NodeStats] = []
        for query, label in (
            ("conversation/forget_turn_stats", "Turn"),
            ("conversation/forget_entity_stats", "Entity"),
        ):
            for row in store.read(query, {"space": space}):
                stats.append(
                    forgetting.NodeStats(
                        id=str(row["id"]),
                        label=label,
                        created_turn=int(row["created_turn"]),
                        last_turn=int(row["last_turn"]),
                        access_count=int(row["access_count"]),
                        degree=int(row["degree"]),
                    )
                )
        chosen = forgetting.select(stats, clock, cfg)
        run_id = f"{now_ms()}-{secrets.token_hex(3)}"
        dumps: list[tuple[str, float, dict[str, Any]]] = []
        for label, query in (
            ("Turn", "conversation/dump_turns"),
            ("Entity", "conversation/dump_entities"),
        ):
            ids = [n.id for n, _ in chosen if n.label == label]
            score = {n.id: s for n, s in chosen if n.label == label}
            for start in range(0, len(ids), 500):
                for row in store.read(query, {"space": space, "ids": ids[start : start + 500]}):
                    dumps.append((label, score[str(row["id"])], row))
        edges: set[tuple[str, str, str, str]] = set()
        size = 0
        by_label: dict[str, int] = defaultdict(int)
        for label, _, row in dumps:
            by_label[label] += 1
            size += _node_bytes(row["props"])
            for edge in row["edges"]:
                if edge is None:
                    continue
                ends = (
                    (row["id"], edge["other"]) if edge["outgoing"] else (edge["other"], row["id"])
                )
                key = (
                    edge["type"],
                    str(ends[0]),
                    str(ends[1]),
                    str((edge["props"] or {}).get("id", "")),
                )
                if key not in edges:
                    edges.add(key)
                    size += _edge_bytes(edge["props"] or {})
        report = ForgetReport(
            space=space,
            run_id=run_id,
            dry_run=dry_run,
            archived=cfg.archive and not dry_run,
            candidates=len(stats),
            nodes_removed=len(dumps),
            edges_removed=len(edges),
            bytes_removed=size,
            removed_by_label=dict(by_label),
            threshold=cfg.threshold,
        )
        if dry_run:
            return report
        now = now_ms()
        if cfg.archive and dumps:
            rows = [
                {
                    "id": f"{label}:{row['id']}",
                    "label": label,
                    "node_id": row["id"],
                    "summary": _summary(label, row["props"]),
                    "importance": score,
                    "payload_json": json.dumps(
                        {"props": _strip(row["props"]), "edges": [e for e in row["edges"] if e]},
                        ensure_ascii=False,
                        default=str,
                    ),
                }
                for label, score, row in dumps
            ]
            store.write_batches(
                "conversation/archive_nodes",
                rows,
                batch_size=200,
                params={"space": space, "run_id": run_id, "now": now},
            )
        sessions = {str(row["props"].get("session")) for label, _, row in dumps if label == "Turn"}
        neighbours = {
            str(e["other"])
            for label, _, row in dumps
            if label == "Turn"
            for e in row["edges"]
            if e and e["type"] == "MENTIONS"
        }
        for label, query in (
            ("Turn", "conversation/delete_turns"),
            ("Entity", "conversation/delete_entities"),
        ):
            ids = [str(row["id"]) for lab, _, row in dumps if lab == label]
            for start in range(0, len(ids), 500):
                store.write(query, {"space": space, "ids": ids[start : start + 500]})
        self._after_change(space, sessions, neighbours)
        store.write(
            "conversation/record_forget_run",
            {
                "space": space,
                "run_id": run_id,
                "at_turn": clock,
                "now": now,
                "nodes_removed": report.nodes_removed,
                "edges_removed": report.edges_removed,
                "bytes_removed": report.bytes_removed,
                "threshold": cfg.threshold,
                "archived": report.archived,
            },
        )
        return report

    def _after_change(self, space: str, sessions: Iterable[str], entities: Iterable[str]) -> None:
        store = self.parts.store
        session_list = sorted(s for s in sessions if s and s != "None")
        if session_list:
            store.write("conversation/refresh_sessions", {"space": space, "sessions": session_list})
        entity_list = sorted(entities)
        for start in range(0, len(entity_list), 1000):
            store.write(
                "conversation/refresh_entities",
                {"space": space, "ids": entity_list[start : start + 1000]},
            )

    def restore(self, *, space: str, run_id: str | None = None) -> RestoreReport:
        """Bring archived nodes back (all, or one run's) with the edges whose other end still
        exists; the archive records are removed afterwards."""
        self.parts.require_space(space)
        store = self.parts.store
        records = store.read("conversation/list_forgotten", {"space": space, "run_id": run_id})
        if not records:
            what = f"run {run_id!r}" if run_id else "anything"
            raise NotFound(f"space {space!r} has no archived nodes from {what}")
        node_rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
        edge_rows: dict[str, dict[tuple[str, str, str], dict[str, Any]]] = defaultdict(dict)
        sessions: set[str] = set()
        entities: set[str] = set()
        for record in records:
            payload = json.loads(record["payload_json"])
            props = dict(payload["props"])
            embedding = props.pop("embedding", None)
            label = str(record["label"])
            node_id = str(record["node_id"])
            props.pop("id", None)
            node_rows[label].append({"id": node_id, "props": props, "embedding": embedding})
            if label == "Turn" and props.get("session"):
                sessions.add(str(props["session"]))
            if label == "Entity":
                entities.add(node_id)
            for edge in payload["edges"]:
                source, target = (
                    (node_id, edge["other"]) if edge["outgoing"] else (edge["other"], node_id)
                )
                edge_props = dict(edge["props"] or {})
                key = (str(source), str(target), str(edge_props.get("id", "")))
                edge_rows[str(edge["type"])][key] = {
                    "source": source,
                    "target": target,
                    "props": edge_props,
                }
                if edge["type"] == "MENTIONS":
                    entities.add(str(target))
        labels = known_labels()
        rels = known_relationships()
        nodes_restored = 0
        for label, rows in node_rows.items():
            store.write_batches(
                labels[label].import_query, rows, batch_size=200, params={"space": space}
            )
            nodes_restored += len(rows)
        edges_restored = 0
        for rel_type, keyed in edge_rows.items():
            for start in range(0, len(keyed), 500):
                chunk = list(keyed.values())[start : start + 500]
                written = store.write(rels[rel_type].import_query, {"space": space, "rows": chunk})
                edges_restored += int(written[0]["written"]) if written else 0
        ids = [str(r["id"]) for r in records]
        for start in range(0, len(ids), 500):
            store.write(
                "conversation/delete_forgotten", {"space": space, "ids": ids[start : start + 500]}
            )
        self._after_change(space, sessions, entities)
        return RestoreReport(
            space=space,
            nodes_restored=nodes_restored,
            edges_restored=edges_restored,
            runs=tuple(sorted({str(r["run_id"]) for r in records})),
        )


def _strip(props: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if k != "space"}


def _node_bytes(props: Mapping[str, Any]) -> int:
    """Stored size estimate: JSON of the properties, 4 bytes per float32 vector component."""
    embedding = props.get("embedding")
    rest = {k: v for k, v in props.items() if k != "embedding"}
    vector = 4 * len(embedding) if isinstance(embedding, list) else 0
    return len(json.dumps(rest, ensure_ascii=False, default=str).encode("utf-8")) + vector


def _edge_bytes(props: Mapping[str, Any]) -> int:
    # 16: type and the two endpoint references.
    return 16 + len(json.dumps(dict(props), ensure_ascii=False, default=str).encode("utf-8"))


def _summary(label: str, props: Mapping[str, Any]) -> str:
    if label == "Turn":
        text = str(props.get("text", ""))
        return f"{props.get('speaker', '')}: {text[:120]}"
    return f"{props.get('name', '')} ({props.get('type', '')})"
