"""The plan writer on its own (embedded FalkorDB): a fact the source closes after a first
migration is closed by the next run, and a run resumed after a partial one stores the rest."""

from __future__ import annotations

import dataclasses

from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.migrate.plan import EntityRow, FactRow, SpacePlan
from graphmem_neo4j.migrate.writer import PlanWriter

OPEN = FactRow(
    source_id="mem0-abc",
    subject="alice",
    relation="lives_in",
    object="paris",
    category="person",
    valid_from=1_700_000_000_000,
    valid_to=None,
    recorded_at=1_700_000_000_000,
    closed=False,
)


def plan(*facts: FactRow) -> SpacePlan:
    space = SpacePlan("adopted", "alice")
    space.entities.append(EntityRow("n1", "paris", "city", 1_700_000_000_000))
    space.facts.extend(facts)
    return space


def test_a_relationship_closed_since_the_last_run_is_closed(target: GraphMemory) -> None:
    writer = PlanWriter(target)
    first = writer.write(plan(OPEN))
    assert (first.facts_stored, first.entities_stored) == (1, 1)
    closed = dataclasses.replace(OPEN, closed=True, valid_to=1_700_000_900_000)
    again = writer.write(plan(closed))
    assert (again.facts_stored, again.facts_reclosed, again.entities_stored) == (0, 1, 0)
    assert target.facts.current("alice", space="adopted") == []
    (then,) = target.facts.current("alice", space="adopted", as_of=1_700_000_500_000)
    assert then.object == "paris" and then.valid_to == 1_700_000_900_000
    assert writer.write(plan(closed)).stored() == 0


def test_a_resumed_run_stores_only_the_rest(target: GraphMemory) -> None:
    other = dataclasses.replace(OPEN, source_id="mem0-def", relation="likes", object="jazz")
    writer = PlanWriter(target)
    assert writer.write(plan(OPEN)).facts_stored == 1  # the run that "crashed" after one
    resumed = writer.write(plan(OPEN, other))
    assert (resumed.facts_stored, resumed.facts_unchanged) == (1, 1)
    assert {u.object for u in target.facts.current("alice", space="adopted")} == {
        "paris",
        "jazz",
    }
