"""Every facts query FalkorDB runs is run here (the rule: each file is exercised)."""

from __future__ import annotations

from pathlib import Path

from graphmem_neo4j.facts.models import FactQuery, TempUnit
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.nearest import nearest_one
from graphmem_neo4j.queries import query_files

from .conftest import RecordingStore, fact

REPO = Path(__file__).resolve().parents[3]


def test_every_facts_query_runs(recorded: tuple[GraphMemory, RecordingStore], space: str) -> None:
    memory, store = recorded
    memory.init()
    memory.facts.add_file(REPO / "examples" / "facts.jsonl", space=space)
    memory.facts.add_file(REPO / "examples" / "facts_updates.jsonl", space=space)
    memory.facts.add_facts([fact("Alicia", "lives_in", "Nice", id="alicia-home")], space=space)
    # a dependency on a unit stored before the batch goes through the rewrite (value_heads)
    memory.facts.add_facts(
        [fact("Alicia", "member_of", "Nice club", "activity", depends_on=["alicia-home"])],
        space=space,
    )
    memory.facts.ask("Where does Alice live in the evening?", space=space)
    memory.facts.ask("What does Alice drink at dinner?", space=space)
    memory.facts.ask("Which city hosts the running club?", space=space)
    memory.facts.search(
        FactQuery(subject="Bob", relation="employer", category="organisation"), space=space
    )
    memory.facts.search(FactQuery(subject="Alicia Keys"), space=space)
    memory.facts.current("Alice", space=space, as_of="2020-01-01")
    memory.facts.history("Alice", space=space)
    memory.facts.path("alice-club", space=space)
    memory.facts.path("bob-employer", space=space)
    temp = TempUnit({}, None, frozenset(), "location", None, 0, "")
    memory.facts.localiser.localise(space, [temp], categories={"location": 1.0})
    # the index settles every lookup of a graph this small (it gives all its label holds), so
    # the exact scans behind the three lookups run here directly
    vector = memory.embedder.embed(["Alice"])[0]
    for query in ("facts/similar_subjects", "facts/similar_categories", "facts/similar_units"):
        nearest_one(store, query, vector, space=space, k=3, exact=True)  # type: ignore[arg-type]
    facts_queries = {
        name for name, _, d in query_files() if name.startswith("facts/") and d != "neo4j"
    }
    assert facts_queries - set(store.calls) == set()
