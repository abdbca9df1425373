"""One batch ingestion per layer, runnable in this process or as `graphmem` commands, with what
a crash test needs to know about it: how to see that it has started writing, which writes
leave which records, and the consistency rule of the layer's part of the graph."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphmem_neo4j.conversation.models import ConversationConfig
from graphmem_neo4j.conversation.readers import read_jsonl
from graphmem_neo4j.conversation.service import ConversationService
from graphmem_neo4j.experience.models import Kind
from graphmem_neo4j.experience.parsing import parse_file
from graphmem_neo4j.insights.parsing import read_tasks
from graphmem_neo4j.memory import GraphMemory

from .helpers import (
    Graph,
    check_conversation,
    check_experience,
    check_facts,
    check_insights,
    fact_rows,
    split_kinds,
    task_rows,
    trajectory_rows,
    turn_rows,
    write_jsonl,
)

# query → (label, where the written ids are): "rows" = params["rows"][*]["id"], a key name =
# params[key]. After a crash, every node an acknowledged write created must be there.
ACK_NODES: dict[str, tuple[str, str]] = {
    "conversation/upsert_sessions": ("Session", "rows"),
    "conversation/upsert_turns": ("Turn", "rows"),
    "insights/write_task": ("Query", "id"),
    "insights/write_steps": ("InteractionStep", "rows"),
    "insights/apply_revise": ("Insight", "id"),
    "insights/create_insight": ("Insight", "id"),
    "experience/upsert_tasks": ("Task", "rows"),
    "experience/upsert_trajectories": ("Trajectory", "rows"),
    "experience/upsert_actions": ("Action", "rows"),
    "facts/write_units": ("MemoryUnit", "rows"),
}


def check_acknowledged(g: Graph, acked: list[tuple[str, dict[str, Any]]]) -> int:
    """Every acknowledged write is visible: its nodes exist and its finishing marks are set.
    Returns how many records were checked."""
    checked = 0
    for query, params in acked:
        if query in ACK_NODES:
            label, where = ACK_NODES[query]
            ids = [r["id"] for r in params["rows"]] if where == "rows" else [params[where]]
            missing = [i for i in ids if (label, i) not in g.nodes]
            assert not missing, f"{query} was acknowledged but {label} {missing[:3]} are gone"
            checked += len(ids)
        elif query == "conversation/finish_turns":
            for turn_id in params["ids"]:
                assert g.turn_link(turn_id)["complete"] is True, turn_id
                checked += 1
        elif query == "insights/complete_task":
            assert g.props("Query", params["id"]).get("recorded_at") is not None
            checked += 1
        elif query == "insights/finish_feedback":
            assert g.props("Query", params["id"]).get("feedback_at") is not None
            checked += 1
        elif query == "experience/set_content_hashes":
            for row in params["rows"]:
                stored = g.props("Trajectory", row["id"]).get("content_hash")
                assert stored == row["content_hash"], row["id"]
                checked += 1
    return checked


@dataclass(frozen=True)
class Scenario:
    name: str
    files: Callable[[Path, float, str], list[list[str]]]
    """Writes the inputs (`scale` 1.0 = big enough to kill a `graphmem` process half-way; ids
    and names start with the prefix) under a folder; returns the `graphmem` argument lists to
    run in order (without --space)."""
    ingest: Callable[[GraphMemory, str, Path], None]
    """The same ingestion through the Python API, from the files `files` wrote."""
    started: str
    """A label whose nodes appear once the ingestion has written something."""
    check: Callable[[Graph], None]
    inputs: tuple[str, ...]
    """Labels whose nodes are the input itself, whatever order it arrives in (derived ones,
    like learnt insights, depend on the order)."""
    exact_neighbours: bool
    """Derived links come from exact similarity scans (small spaces), not from the vector
    index every space shares, whose approximate answers depend on what else it holds."""

    def __str__(self) -> str:
        return self.name


def _n(count: int, scale: float) -> int:
    return max(2, round(count * scale))


# --- conversation ----------------------------------------------------------------------------


def _conversation_files(folder: Path, scale: float, prefix: str = "") -> list[list[str]]:
    path = write_jsonl(folder / "turns.jsonl", turn_rows(_n(16, scale), 60, prefix=prefix))
    return [["ingest", str(path), "--forget-every", "0"]]


def _conversation_ingest(memory: GraphMemory, space: str, folder: Path) -> None:
    turns = read_jsonl(folder / "turns.jsonl")
    # smaller batches than the CLI's, so a crash lands between many acknowledged writes
    service = ConversationService(memory, ConversationConfig(batch_size=64))
    service.add_turns(turns, space=space, forget_every=0)


# --- insights --------------------------------------------------------------------------------


def _insight_files(folder: Path, scale: float, prefix: str = "") -> list[list[str]]:
    path = write_jsonl(folder / "tasks.jsonl", task_rows(_n(120, scale), prefix=prefix))
    return [["tasks", "record", str(path), "--feedback"]]


def _insight_ingest(memory: GraphMemory, space: str, folder: Path) -> None:
    tasks = read_tasks(folder / "tasks.jsonl").tasks
    memory.insights.record_tasks(tasks, space=space, learn=True)


# --- experience ------------------------------------------------------------------------------


def _experience_files(folder: Path, scale: float, prefix: str = "") -> list[list[str]]:
    expert, exploration = split_kinds(trajectory_rows(_n(200, scale), prefix=prefix))
    a = write_jsonl(folder / "expert.jsonl", expert)
    b = write_jsonl(folder / "exploration.jsonl", exploration)
    return [
        ["experience", "add", str(a), "--kind", "expert"],
        ["experience", "add", str(b), "--kind", "exploration"],
    ]


def _experience_ingest(memory: GraphMemory, space: str, folder: Path) -> None:
    kinds: tuple[Kind, ...] = ("expert", "exploration")
    for kind in kinds:
        runs = parse_file(folder / f"{kind}.jsonl", kind=kind)
        memory.experience.add(runs, space=space)


# --- facts -----------------------------------------------------------------------------------


def _fact_files(folder: Path, scale: float, prefix: str = "") -> list[list[str]]:
    path = write_jsonl(folder / "facts.jsonl", fact_rows(_n(60, scale), prefix=prefix))
    return [["facts", "add", str(path)]]


def _fact_ingest(memory: GraphMemory, space: str, folder: Path) -> None:
    memory.facts.add_file(folder / "facts.jsonl", space=space)


CONVERSATION = Scenario(
    "conversation",
    _conversation_files,
    _conversation_ingest,
    "Turn",
    check_conversation,
    ("Session", "Turn", "Entity"),
    True,
)
INSIGHTS = Scenario(
    "insights",
    _insight_files,
    _insight_ingest,
    "Query",
    check_insights,
    ("Query", "InteractionStep"),
    False,
)
EXPERIENCE = Scenario(
    "experience",
    _experience_files,
    _experience_ingest,
    "Trajectory",
    check_experience,
    ("Task", "Trajectory", "Action"),
    False,
)
FACTS = Scenario(
    "facts",
    _fact_files,
    _fact_ingest,
    "MemoryUnit",
    check_facts,
    ("MemoryUnit", "Subject", "Category"),
    True,
)
SCENARIOS = (CONVERSATION, FACTS, INSIGHTS, EXPERIENCE)
