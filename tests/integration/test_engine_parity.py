"""Engine parity: the same workload on the embedded FalkorDB and on a real Neo4j, written
under one frozen clock, stores the same graph (equal export content hashes) and answers the
same (search and recall top 10, the facts views)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphmem_neo4j.conversation.models import TurnInput
from graphmem_neo4j.embedder import Embedder
from graphmem_neo4j.insights.parsing import read_tasks
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import canonical, dump_records, space_digest
from graphmem_neo4j.schema import frozen_clock
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store.embedded import EmbeddedServer
from tests.conftest import empty_neo4j

pytestmark = pytest.mark.neo4j

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SPACE = "parity"


def workload(memory: GraphMemory) -> None:
    memory.conversation.ingest_file(EXAMPLES / "conversation.jsonl", space=SPACE)
    memory.facts.add_file(EXAMPLES / "facts.jsonl", space=SPACE)
    memory.facts.add_file(EXAMPLES / "facts_updates.jsonl", space=SPACE)
    for name in ("tasks.jsonl", "tasks_more.jsonl"):
        tasks = read_tasks(EXAMPLES / name)
        memory.insights.record_tasks(
            tasks.tasks, space=SPACE, source=tasks.source, lines=tasks.lines, learn=True
        )
    experience = EXAMPLES / "experience"
    memory.experience.add_file(experience / "expert.jsonl", kind="expert", space=SPACE)
    memory.experience.add_file(experience / "exploration.jsonl", kind="exploration", space=SPACE)


def answers(memory: GraphMemory) -> dict[str, Any]:
    queries = [
        json.loads(line)["query"]
        for line in (EXAMPLES / "conversation_queries.jsonl").read_text().splitlines()
    ]
    found: dict[str, Any] = {}
    for query in queries:
        for mode in ("hybrid", "vector", "fulltext", "sf"):
            hits = memory.conversation.search(query, space=SPACE, k=10, mode=mode).hits
            found[f"search {mode}: {query}"] = [h.turn_id for h in hits]
    for query in [*queries[:3], "Where does Alice live now?", "heat some egg and put it in fridge"]:
        items = memory.recall(query, space=SPACE, budget_tokens=800).items
        found[f"recall: {query}"] = [(i.layer, i.label, i.id) for i in items][:10]
    for subject in ("Alice", "Bob"):
        found[f"current {subject}"] = [u.id for u in memory.facts.current(subject, space=SPACE)]
        history = memory.facts.history(subject, space=SPACE)
        found[f"history {subject}"] = [entry.as_dict() for entry in history]
    asked = memory.facts.ask("Where does Alice live?", space=SPACE).as_dict()
    found["ask"] = {k: v for k, v in asked.items() if k != "stats"}  # stats: timings
    return found


@pytest.fixture
def engines(
    falkordb_server: EmbeddedServer, neo4j_uri: tuple[str, str, str], minilm: Embedder
) -> Iterator[tuple[GraphMemory, GraphMemory]]:
    uri, user, password = neo4j_uri
    empty_neo4j(uri, user, password)
    falkor = Settings(
        home=falkordb_server.home,
        embedded_port=falkordb_server.port,
        database=f"parity_{uuid.uuid4().hex[:10]}",
    )
    neo = Settings(uri=uri, user=user, password=password)
    with GraphMemory(falkor, embedder=minilm) as a, GraphMemory(neo, embedder=minilm) as b:
        yield a, b


def test_the_same_workload_stores_and_answers_the_same(
    engines: tuple[GraphMemory, GraphMemory],
) -> None:
    falkor, neo = engines
    for memory in engines:
        with frozen_clock(1_714_000_000_000):
            workload(memory)
    on_falkor = {canonical(r) for r in dump_records(falkor, SPACE)}
    on_neo = {canonical(r) for r in dump_records(neo, SPACE)}
    different = sorted(on_falkor ^ on_neo)
    assert space_digest(falkor, SPACE) == space_digest(neo, SPACE), different[:6]
    with frozen_clock(1_714_000_100_000):
        assert answers(falkor) == answers(neo)


LOCOMO = Path(__file__).resolve().parents[1] / "fixtures" / "locomo_subset.json"
TIE = 1e-6


def ranked(memory: GraphMemory, space: str, question: str) -> list[tuple[str, float]]:
    hits = memory.conversation.search(question, space=space, k=10, touch=False).hits
    return [(h.turn_id, h.score) for h in hits]


STEMMED = [
    "We used the old bus.",
    "Come along with us.",
    "Big news today.",
    "A new job.",
    "I focused on the painting.",
    "We tried yoga.",
    "One evening we walked.",
    "Even so, the statue stood.",
    "An enjoyable day.",
]
"""Turns whose words Porter's stemmer (Lucene's `english` analyser) and Snowball's (FalkorDB's
index) treat differently: Porter stems "use" and "us" alike, "news" and "new", "status" and
"statue", and "focus" unlike "focused"."""


def test_a_word_finds_the_same_turns_on_both_engines(
    engines: tuple[GraphMemory, GraphMemory],
) -> None:
    turns = [
        TurnInput(session="s1", turn_id=f"t{i}", speaker="Ann", text=text)
        for i, text in enumerate(STEMMED)
    ]
    for memory in engines:
        memory.conversation.add_turns(turns, space="stems", forget_every=0)

    def found(memory: GraphMemory, word: str) -> set[str]:
        hits = memory.conversation.search(word, space="stems", mode="fulltext", touch=False)
        return {h.turn_id for h in hits.hits}

    words = ("use", "used", "news", "focus", "trying", "evening", "status", "enjoy")
    falkor, neo = engines
    assert {w: found(neo, w) for w in words} == {w: found(falkor, w) for w in words}
    assert found(neo, "use") == {"t0"} and found(neo, "news") == {"t2"}
    assert found(neo, "focus") == {"t4"} and found(neo, "trying") == {"t5"}


def test_locomo_questions_get_the_same_top_10_or_a_tie_in_score(
    engines: tuple[GraphMemory, GraphMemory],
) -> None:
    """Six LoCoMo sessions (108 turns) and the 61 questions whose evidence lies in them: each
    question's hybrid top 10 is the same on both engines, or both lists hold the same scores
    rank by rank, so that only the order among equal scores differs."""
    from graphmem_neo4j.conversation.readers import read_locomo

    ((space, turns),) = read_locomo(LOCOMO)
    questions = [q["question"] for q in json.loads(LOCOMO.read_text())[0]["qa"]]
    assert len(turns) == 108 and len(questions) == 61
    for memory in engines:
        with frozen_clock(1_714_000_000_000):
            memory.conversation.add_turns(turns, space=space, forget_every=0)
    falkor, neo = engines
    same = ties = 0
    different: list[str] = []
    for question in questions:
        a, b = ranked(falkor, space, question), ranked(neo, space, question)
        assert len(a) == 10, question
        if [i for i, _ in a] == [i for i, _ in b]:
            same += 1
        elif len(a) == len(b) and all(
            abs(x - y) <= TIE for (_, x), (_, y) in zip(a, b, strict=True)
        ):
            ties += 1
        else:
            different.append(f"{question}\n  falkordb {a}\n  neo4j    {b}")
    assert not different, "\n".join(different)
    assert same + ties == len(questions)
