"""Tenant isolation: two spaces hold the same ids and almost the same texts (a marker word
tells them apart). No read of one (search, facts, insights, experience, export, stats) returns
anything of the other, and no write to one (forget, rewrite, archive, revise, replace,
import) changes the other."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from graphmem_neo4j.conversation.models import ForgettingConfig
from graphmem_neo4j.conversation.readers import parse_turn_row
from graphmem_neo4j.experience.parsing import from_jsonl
from graphmem_neo4j.facts.models import FactQuery
from graphmem_neo4j.insights.parsing import task_from_dict
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import export_space, import_dump

from .helpers import Graph, fact_rows, snapshot, task_rows, trajectory_rows, turn_rows

A, B = "tenant-a", "tenant-b"
MARK = {A: "alpha", B: "bravo"}


def _marked(text: str, space: str) -> str:
    return f"{text} {MARK[space]}"


def fill(memory: GraphMemory, space: str) -> None:
    """The same ids in both spaces; every text carries the space's marker word."""
    turns = [
        parse_turn_row({**r, "text": _marked(r["text"], space)}, source="t", line=n)
        for n, r in enumerate(turn_rows(2, 12), 1)
    ]
    memory.conversation.add_turns(turns, space=space, forget_every=0)
    facts = [{**r, "object": _marked(r["object"], space)} for r in fact_rows(3)[:9]]
    memory.facts.add_facts(facts, space=space)
    tasks = [
        task_from_dict(
            {**{k: v for k, v in r.items() if v is not None}, "query": _marked(r["query"], space)}
        )
        for r in task_rows(6)
    ]
    memory.insights.record_tasks(tasks, space=space)
    for n in range(3):
        memory.insights.add_insight(
            _marked(f"check the box before the trip {n}", space),
            space=space,
            evidence=[f"task-{n}"],
        )
    runs = [
        from_jsonl({**r, "task": _marked(r["task"], space)}, kind="expert")
        for r in trajectory_rows(3)[::2]
    ]
    memory.experience.add(runs, space=space)


def texts(value: Any) -> str:
    """Everything a result says, as one string to search for markers; the questions asked
    (which name the other space's marker, as bait) are taken out."""
    if hasattr(value, "as_dict"):
        value = value.as_dict()
    text = json.dumps(value, default=str, ensure_ascii=False)
    for mark in MARK.values():
        for bait in (
            f"trip {mark}",
            f"Lisbon {mark}",
            f"live {mark}",
            f"box {mark}",
            f"guitar {mark}",
        ):
            text = text.replace(bait, "")
    return text


@pytest.fixture
def two_spaces(memory: GraphMemory) -> Iterator[GraphMemory]:
    fill(memory, A)
    fill(memory, B)
    yield memory


def reads(memory: GraphMemory, space: str, tmp_path: Path) -> list[tuple[str, str]]:
    """(what, everything it returned) for every read of the public API."""
    other = MARK[B if space == A else A]
    out = [
        ("search", texts(memory.conversation.search(f"trip {other}", space=space, k=50))),
        ("search sf", texts(memory.conversation.search(f"Lisbon {other}", space=space, mode="sf"))),
        ("facts ask", texts(memory.facts.ask(f"Where does Person 1 live {other}?", space=space))),
        (
            "facts current",
            texts([u.as_dict() for u in memory.facts.current("Person 1", space=space)]),
        ),
        (
            "facts history",
            texts([e.as_dict() for e in memory.facts.history("Person 1", space=space)]),
        ),
        (
            "facts search",
            texts(
                [
                    h.as_dict()
                    for h in memory.facts.search(
                        FactQuery(subject="Person 1", relation="lives_in"), space=space
                    )
                ]
            ),
        ),
        (
            "insights retrieve",
            # A stored goal, which the other space holds too but for its marker: a read that
            # crossed spaces would bring the other's insights. A goal unlike the stored ones
            # gets no insights at all (min_similarity, and the seeds' tightness).
            texts(
                memory.insights.retrieve(
                    _marked("put the guitar in the Lisbon box", space), space=space
                )
            ),
        ),
        (
            "insights list",
            texts(
                [
                    i.as_dict()
                    for i in memory.insights.list_insights(space=space, include_archived=True)
                ]
            ),
        ),
        ("task", texts(memory.insights.get_task("task-1", space=space))),
        (
            "experience",
            texts(memory.experience.retrieve(f"put a guitar {other}", space=space, k=10)),
        ),
        ("trajectory", texts(memory.experience.trajectory("run-0", kind="expert", space=space))),
        ("stats", texts(memory.stats(space))),
    ]
    dump = tmp_path / f"{space}.jsonl"
    with dump.open("w", encoding="utf-8") as handle:
        export_space(memory, space, handle)
    out.append(("export", dump.read_text(encoding="utf-8")))
    return out


def test_no_read_crosses_spaces(two_spaces: GraphMemory, tmp_path: Path) -> None:
    memory = two_spaces
    for space, other in ((A, B), (B, A)):
        for what, seen in reads(memory, space, tmp_path):
            assert MARK[other] not in seen, f"{what} in {space} returned {other}'s memory"
            if what not in ("stats", "facts current", "facts history", "facts search", "task"):
                assert MARK[space] in seen or what == "search sf", f"{what} found nothing"
    assert memory.stats(A)["nodes"] == memory.stats(B)["nodes"]


def _shape(memory: GraphMemory, space: str) -> Any:
    return snapshot(memory, space).shape()


def test_no_write_crosses_spaces(two_spaces: GraphMemory, tmp_path: Path) -> None:
    memory = two_spaces
    before: Graph = snapshot(memory, B)

    # forget: prune almost everything of A, then bring it back
    cfg = replace(ForgettingConfig(), threshold=0.99, min_age_turns=0)
    report = memory.conversation.forget(space=A, config=cfg)
    assert report.nodes_removed > 0
    memory.conversation.restore(space=A)
    # rewrite: a new value supersedes A's unit and outdates what depended on it
    update = {**fact_rows(1)[2], "id": "p0-home-3", "object": "Reykjavik", "valid_from": "2024"}
    outcome = memory.facts.add_facts([update], space=A).outcomes[0]
    assert outcome.superseded
    # insights: archive, revise and add through the controller (a failed task)
    failed = task_from_dict(
        {
            "id": "task-1",
            "query": "put the beagle in the Lisbon box",
            "status": "failed",
            "steps": [{"action": "x", "observation": "y"}],
        }
    )
    memory.insights.record_tasks([replace(failed, id="task-new")], space=A)
    memory.insights.feedback("task-new", space=A)
    # experience: the same run id with other steps replaces A's run
    run = from_jsonl(
        {**trajectory_rows(1)[0], "steps": [{"action": "look", "observation": "ok"}]}, kind="expert"
    )
    memory.experience.add([replace(run, task=_marked(run.task, A))], space=A)
    # import B's own export into A: the ids are the same, the space is not
    dump = tmp_path / "b.jsonl"
    with dump.open("w", encoding="utf-8") as handle:
        export_space(memory, B, handle)
    import_dump(memory, dump, space=A)

    after = snapshot(memory, B)
    assert after.shape() == before.shape()
    assert MARK[A] not in dump.read_text(encoding="utf-8")
