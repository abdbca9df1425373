"""What the reliability tests share: synthetic inputs for every layer, a `graphmem` process
runner, a snapshot of a space read through the export records (so the tests hold no Cypher),
and the consistency rules a space must satisfy after any crash.

The soak benchmarks (`benchmarks/soak_*.py`) import these too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import dump_records
from graphmem_neo4j.schema import labels as known_labels
from graphmem_neo4j.schema import relationships as known_relationships
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store.embedded import EmbeddedServer

GRAPHMEM = [sys.executable, "-c", "from graphmem_neo4j.cli.main import run; run()"]

# --- inputs -------------------------------------------------------------------------------

_PLACES = ("Lisbon", "Porto", "Paris", "Berlin", "Oslo", "Rome", "Vienna", "Prague")
_THINGS = ("guitar", "beagle", "garden", "novel", "bicycle", "camera", "piano", "kayak")


def turn_rows(sessions: int, turns: int, *, prefix: str = "") -> list[dict[str, Any]]:
    """`sessions` x `turns` conversation turns in the JSONL form (two speakers)."""
    rows = []
    for s in range(sessions):
        for t in range(turns):
            speaker = ("Maya", "Tom")[t % 2]
            place = _PLACES[(s + t) % len(_PLACES)]
            thing = _THINGS[(s * 3 + t) % len(_THINGS)]
            rows.append(
                {
                    "session": f"{prefix}s{s}",
                    "turn_id": f"{prefix}s{s}-t{t}",
                    "speaker": speaker,
                    "text": f"I took my {thing} to {place} on trip {s}.{t} with Ana.",
                    "timestamp": f"2023-{1 + s % 12:02d}-{1 + t % 28:02d}T10:00:00",
                }
            )
    return rows


def task_rows(count: int, *, prefix: str = "") -> list[dict[str, Any]]:
    """Finished agent tasks for `graphmem tasks record`: resolved and failed, similar queries."""
    rows = []
    for i in range(count):
        thing = _THINGS[i % len(_THINGS)]
        place = _PLACES[(i // len(_THINGS)) % len(_PLACES)]
        steps = [
            {"action": f"go to shelf {i % 3}", "observation": f"You see a {thing}."},
            {"action": f"take {thing}", "observation": f"You hold the {thing}."},
            {"action": f"put {thing} in {place}", "observation": "Done."},
        ]
        rows.append(
            {
                "id": f"{prefix}task-{i}",
                "query": f"put the {thing} in the {place} box",
                "status": "failed" if i % 4 == 3 else "resolved",
                "steps": steps,
                "feedback": "the box was locked" if i % 4 == 3 else None,
            }
        )
    return rows


def trajectory_rows(tasks: int, *, prefix: str = "") -> list[dict[str, Any]]:
    """An expert and an exploration run per task, in the generic JSONL form."""
    rows = []
    for i in range(tasks):
        thing = _THINGS[i % len(_THINGS)]
        place = f"cabinet {i % 5}"
        task = f"put a {thing} {i} in {place}."
        expert = [
            {"action": f"go to countertop {i % 3}", "observation": f"You see a {thing} {i}."},
            {"action": f"take {thing} {i} from countertop {i % 3}", "observation": "Taken."},
            {"action": f"go to {place}", "observation": f"The {place} is open."},
            {"action": f"put {thing} {i} in/on {place}", "observation": "You put it."},
        ]
        wander = [{"action": f"go to drawer {i % 4}", "observation": "Nothing happens."}]
        rows.append({"id": f"{prefix}run-{i}", "task": task, "reward": 1.0, "steps": expert})
        rows.append(
            {
                "id": f"{prefix}run-{i}",
                "task": task,
                "reward": 0.0,
                "steps": wander + expert[:2],
                "kind": "exploration",
            }
        )
    return rows


def split_kinds(rows: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], ...]:
    """trajectory_rows → (expert rows, exploration rows) without the `kind` marker."""
    expert = [dict(r) for r in rows if r.get("kind") != "exploration"]
    exploration = [{k: v for k, v in r.items() if k != "kind"} for r in rows if r.get("kind")]
    return expert, exploration


def fact_rows(subjects: int, *, prefix: str = "") -> list[dict[str, Any]]:
    """Per subject: a home, a club that depends on it, then a move that supersedes the home
    and outdates the club, then a weak contrary claim that stays pending."""
    rows = []
    for i in range(subjects):
        who = f"{prefix}Person {i}"
        key = f"{prefix}p{i}"
        rows += [
            {
                "id": f"{key}-home-1",
                "subject": who,
                "relation": "lives_in",
                "object": _PLACES[i % len(_PLACES)],
                "category": "location",
                "valid_from": "2019-03-01",
                "confidence": 0.9,
            },
            {
                "id": f"{key}-club",
                "subject": who,
                "relation": "local_club",
                "object": f"{_PLACES[i % len(_PLACES)]} Running Club",
                "category": "activity",
                "valid_from": "2019-06-01",
                "depends_on": [f"{key}-home-1"],
            },
            {
                "id": f"{key}-home-2",
                "subject": who,
                "relation": "lives_in",
                "object": _PLACES[(i + 1) % len(_PLACES)],
                "category": "location",
                "valid_from": "2022-09-01",
                "confidence": 0.95,
            },
            {
                "id": f"{key}-rumour",
                "subject": who,
                "relation": "lives_in",
                "object": "Atlantis",
                "category": "location",
                "valid_from": "2023-01-01",
                "confidence": 0.3,
            },
        ]
    return rows


def write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


# --- processes ------------------------------------------------------------------------------


def cli_env(server: EmbeddedServer, database: str, **extra: str) -> dict[str, str]:
    """The environment of a `graphmem` process on `server`, graph `database`, hash embedder."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env.update(
        GRAPHMEM_HOME=str(server.home),
        GRAPHMEM_DATABASE=database,
        GRAPHMEM_EMBEDDER="hash",
        PYTHONPATH=str(Path(__file__).resolve().parents[3]),
        **({"GRAPHMEM_EMBEDDED_PORT": str(server.port)} if server.port else {}),
    )
    env.update(extra)
    return env


def start_graphmem(args: Sequence[str], env: Mapping[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*GRAPHMEM, *args],
        env=dict(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def graphmem(
    args: Sequence[str], env: Mapping[str, str], timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*GRAPHMEM, *args], env=dict(env), capture_output=True, text=True, timeout=timeout
    )


def settings_for(server: EmbeddedServer, database: str, **extra: Any) -> Settings:
    return Settings(
        home=server.home, embedded_port=server.port, database=database, embedder="hash", **extra
    )


# --- the graph, as data -----------------------------------------------------------------------

# Properties that record when something was written (or read), not what: they differ between
# two runs of the same input, so comparisons leave them out. Every `*_at` property is a time.
VOLATILE = frozenset({"at", "last_access"})


def lasting(key: str) -> bool:
    return key not in VOLATILE and not key.endswith("_at")


@dataclass
class Graph:
    nodes: dict[tuple[str, str], dict[str, Any]]
    rels: list[dict[str, Any]]

    def ids(self, label: str) -> set[str]:
        return {i for (lab, i) in self.nodes if lab == label}

    def props(self, label: str, node_id: str) -> dict[str, Any]:
        return self.nodes[(label, node_id)]

    def turn_link(self, turn_id: str) -> dict[str, Any]:
        """The properties of the HAS_TURN link to a turn (its `complete` mark)."""
        links = [
            r["props"] for r in self.rels if r["type"] == "HAS_TURN" and r["target"] == turn_id
        ]
        assert len(links) == 1, (turn_id, links)
        return links[0]

    def of(self, label: str) -> dict[str, dict[str, Any]]:
        return {i: p for (lab, i), p in self.nodes.items() if lab == label}

    def edges(self, rel_type: str) -> list[tuple[str, str]]:
        return [(r["source"], r["target"]) for r in self.rels if r["type"] == rel_type]

    def label_counts(self) -> Counter[str]:
        return Counter(label for label, _ in self.nodes)

    def type_counts(self) -> Counter[str]:
        return Counter(r["type"] for r in self.rels)

    def shape(self) -> tuple[frozenset[Any], Counter[Any]]:
        """What two runs of the same input must agree on: every node with its lasting
        properties, and every relationship with its properties, as a multiset (so a
        duplicated edge shows)."""
        nodes = frozenset(
            (label, node_id, _freeze({k: v for k, v in p.items() if lasting(k)}))
            for (label, node_id), p in self.nodes.items()
        )
        rels = Counter(
            (
                r["type"],
                r["source"],
                r["target"],
                _freeze({k: v for k, v in r["props"].items() if lasting(k)}),
            )
            for r in self.rels
        )
        return nodes, rels


def shape_diff(a: Graph, b: Graph, limit: int = 5) -> str:
    """What differs between two graphs' shapes, for assertion messages."""
    changed = []
    for key in sorted(set(a.nodes) & set(b.nodes)):
        pa, pb = a.nodes[key], b.nodes[key]
        keys = {k for k in set(pa) | set(pb) if lasting(k)}
        diff = {k: (pa.get(k), pb.get(k)) for k in keys if _freeze(pa.get(k)) != _freeze(pb.get(k))}
        if diff:
            changed.append((key, {k: (str(x)[:80], str(y)[:80]) for k, (x, y) in diff.items()}))
    rels_a, rels_b = a.shape()[1], b.shape()[1]
    parts = [
        f"nodes only in the first: {sorted(set(a.nodes) - set(b.nodes))[:limit]}",
        f"nodes only in the second: {sorted(set(b.nodes) - set(a.nodes))[:limit]}",
        f"nodes that differ ({len(changed)}): {changed[:limit]}",
        f"relationships only in the first: {list((rels_a - rels_b).items())[:limit]}",
        f"relationships only in the second: {list((rels_b - rels_a).items())[:limit]}",
    ]
    return "\n".join(parts)


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, list):
        # embeddings come back as float32 on FalkorDB: round so both runs compare equal
        return tuple(round(v, 5) if isinstance(v, float) else _freeze(v) for v in value)
    if isinstance(value, float):
        return round(value, 5)
    return value


def snapshot(memory: GraphMemory, space: str) -> Graph:
    nodes: dict[tuple[str, str], dict[str, Any]] = {}
    rels: list[dict[str, Any]] = []
    for record in dump_records(memory, space):
        if record["kind"] == "node":
            key = (record["label"], record["id"])
            assert key not in nodes, f"duplicate node {key}"
            nodes[key] = record["props"]
        else:
            rels.append(record)
    return Graph(nodes, rels)


def open_memory(server: EmbeddedServer, database: str) -> GraphMemory:
    return GraphMemory(settings_for(server, database))


# --- consistency rules ----------------------------------------------------------------------


def check_vocabulary(g: Graph) -> None:
    """Only registered labels and relationship types, each joining its declared labels."""
    node_labels = set(known_labels())
    rel_types = known_relationships()
    assert {label for label, _ in g.nodes} <= node_labels
    for r in g.rels:
        rel = rel_types[r["type"]]
        assert (r["source_label"], r["target_label"]) == (rel.source, rel.target), r


def check_no_duplicate_edges(g: Graph) -> None:
    """Unkeyed relationship types hold at most one edge per (source, target)."""
    keyed = {name for name, rel in known_relationships().items() if rel.keyed}
    seen = Counter((r["type"], r["source"], r["target"]) for r in g.rels if r["type"] not in keyed)
    assert [k for k, n in seen.items() if n > 1] == []
    ids = Counter((r["type"], r["props"].get("id")) for r in g.rels if r["type"] in keyed)
    twice = [k for k, n in ids.items() if n > 1]
    assert twice == [], [r for r in g.rels if (r["type"], r["props"].get("id")) in twice[:2]]


def check_conversation(g: Graph) -> None:
    """No turn without its session; NEXT chains stay chains; complete turns are linked."""
    sessions = g.ids("Session")
    owner: Counter[str] = Counter()
    for source, target in g.edges("HAS_TURN"):
        owner[target] += 1
        assert g.props("Turn", target)["session"] == source
    for turn_id, props in g.of("Turn").items():
        assert props["session"] in sessions, f"turn {turn_id} without its session"
        assert owner[turn_id] == 1, f"turn {turn_id} has {owner[turn_id]} sessions"
    outgoing = Counter(s for s, _ in g.edges("NEXT"))
    incoming = Counter(t for _, t in g.edges("NEXT"))
    assert max(outgoing.values(), default=0) <= 1 and max(incoming.values(), default=0) <= 1


def check_facts(g: Graph) -> None:
    """No superseded unit without its successor; no pending claim without what it contests;
    an outdated unit has lost every active supporter."""
    superseded_by = {t for _, t in g.edges("SUPERSEDES")}
    contests = {s for s, _ in g.edges("CONTESTS")}
    supporters: dict[str, list[str]] = {}
    for source, target in g.edges("SUPPORTS"):
        supporters.setdefault(target, []).append(source)
    units = g.of("MemoryUnit")
    for unit_id, props in units.items():
        if props["status"] == "superseded":
            assert unit_id in superseded_by, f"superseded unit {unit_id} has no successor"
        if props["status"] == "outdated":
            assert all(units[s]["status"] != "active" for s in supporters.get(unit_id, [])), (
                f"outdated unit {unit_id} still has an active supporter"
            )
    for source, target in g.edges("SUPERSEDES"):
        assert units[target]["status"] == "superseded", (source, target)
    del contests  # a pending unit is written before its CONTESTS edge: both states are valid


def check_insights(g: Graph) -> None:
    """No insight archived by a revision without its successor; a recorded query has all its
    steps."""
    revised = {t for _, t in g.edges("REVISED_FROM")}
    for edit in g.of("InsightEdit").values():
        if edit["operation"] == "REVISE":
            assert edit["insight_id"] in revised, f"{edit['insight_id']} revised, no successor"
            assert g.props("Insight", edit["insight_id"])["active"] is False
    steps: Counter[str] = Counter(p["query_id"] for p in g.of("InteractionStep").values())
    for query_id, props in g.of("Query").items():
        if props.get("recorded_at") is not None:
            assert steps[query_id] == props["step_count"], f"query {query_id} lacks steps"


def check_experience(g: Graph) -> None:
    """A finished trajectory (content hash set) has its task and its decision graph."""
    tasks = g.ids("Task")
    of_task = dict(g.edges("OF_TASK"))
    for run_id, props in g.of("Trajectory").items():
        if props.get("content_hash"):
            assert of_task.get(run_id) in tasks, f"trajectory {run_id} without its task"
