"""After an ingestion, and after searches that count their accesses, the turn vector index
answers in full: asked for N candidates it gives N. FalkorDB 4.16 re-indexes a node's vector on
any property write and keeps the old entry as an orphan that shadows live ones; one
`SET t.complete = true` per turn halved every answer, so `nearest()` fell back to scanning the
space exactly (docs/DEVELOPING.md, "Cypher rules"). On both engines."""

from __future__ import annotations

from graphmem_neo4j.conversation.models import TurnInput
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.nearest import ERROR_SAMPLE, RERANK_MARGIN, Probe, _answers, _wire

TURNS = 300
ASKED = 200


def answered(
    memory: GraphMemory, space: str, text: str, query: str = "conversation/search_vector"
) -> int:
    """How many candidates a shared index (the turns' by default) gives when asked for ASKED."""
    vector = memory.embedder.embed([text])[0]
    rows = memory.store.read(
        query,
        {
            "space": space,
            "k": 10,
            "min_similarity": -1.0,
            "with_vectors": False,
            "rerank_margin": RERANK_MARGIN,
            "error_sample": ERROR_SAMPLE,
            "probes": _wire([Probe("q", vector)]),
            "candidates": ASKED,
        },
    )
    return _answers(rows)["q"].seen


def test_an_ingestion_leaves_the_turn_index_answering_in_full(
    memory: GraphMemory, space: str
) -> None:
    memory.init()
    turns = [
        TurnInput(f"s{i // 30}", f"t{i}", "Ana" if i % 2 else "Ben", f"note {i}: topic {i % 17}")
        for i in range(TURNS)
    ]
    report = memory.add_turns(turns, space=space)
    assert report.turns_written == TURNS
    assert answered(memory, space, "topic 3") == ASKED


def test_searches_that_count_their_accesses_leave_it_answering_in_full(
    memory: GraphMemory, space: str
) -> None:
    memory.init()
    turns = [TurnInput("s", f"t{i}", "Ana", f"note {i}: topic {i % 17}") for i in range(TURNS)]
    memory.add_turns(turns, space=space)
    for i in range(20):  # each search counts an access on each of its 10 hits
        assert len(memory.conversation.search(f"topic {i}", space=space, k=10).hits) == 10
    assert answered(memory, space, "topic 3") == ASKED


def test_a_rerun_still_skips_the_complete_turns(memory: GraphMemory, space: str) -> None:
    """The `complete` mark moved to the HAS_TURN link: a rerun must still see it."""
    memory.init()
    turns = [TurnInput("s", f"t{i}", "Ana", f"line {i}") for i in range(5)]
    memory.add_turns(turns, space=space)
    again = memory.add_turns(turns, space=space)
    assert (again.turns_written, again.turns_skipped) == (0, 5)


def test_facts_that_depend_on_facts_of_their_batch_leave_the_unit_index_whole(
    memory: GraphMemory, space: str
) -> None:
    """A fact whose supporters open new slots in the same batch is written active at once,
    with its SUPPORTS edge, not `pending` and then flipped: the flip was a second write to
    every such unit, and the unit index then gave about half of what was asked."""
    memory.init()
    facts = []
    for i in range(TURNS // 2):
        facts.append(
            {"id": f"home{i}", "subject": f"P{i}", "relation": "lives_in", "object": f"T{i % 9}"}
        )
        facts.append(
            {
                "subject": f"P{i}",
                "relation": "local_club",
                "object": f"T{i % 9} club",
                "category": "activity",
                "depends_on": [f"home{i}"],
            }
        )
    report = memory.facts.add_facts(
        [{**f, "category": f.get("category", "location")} for f in facts], space=space
    )
    assert {(o.action, o.status.value) for o in report.outcomes} == {("created", "active")}
    chain = memory.facts.path(report.outcomes[1].id, space=space)
    assert [u.id for u in chain.supporters] == ["home0"]
    assert answered(memory, space, "P7 club", "facts/similar_units") == ASKED
