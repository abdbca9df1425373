"""MicroGraph-based path-level localisation (§3.2) against the engine."""

from __future__ import annotations

import pytest

from graphmem_neo4j.facts.config import FactConfig
from graphmem_neo4j.facts.localise import LocaliseConfig
from graphmem_neo4j.facts.models import FactQuery, TempUnit
from graphmem_neo4j.facts.service import FactService
from graphmem_neo4j.memory import GraphMemory

from .conftest import fact


def crowd(memory: GraphMemory, space: str, people: int = 40) -> None:
    rows = []
    for i in range(people):
        rows += [
            fact(f"Person {i}", "lives_in", f"City {i}"),
            fact(f"Person {i}", "works_at", f"Firm {i}", "organisation"),
            fact(f"Person {i}", "likes", f"Dish {i}", "preference"),
        ]
    memory.facts.add_facts(rows, space=space)


def test_only_the_anchored_micrographs_are_read(memory: GraphMemory, space: str) -> None:
    crowd(memory, space)
    loc = memory.facts.localise_question("Where does Person 7 live?", space=space)
    assert {s for s, _, _ in loc.micrographs} == {"person 7"}
    assert {u.subject_key for u in loc.support} == {"person 7"}
    assert loc.stats.units_read == 3 and loc.stats.units_scanned == 3
    best = loc.best
    assert best is not None and best.head.object == "City 7"
    assert best.score.attribute > 0.6 and best.score.temporal == 1.0


def test_the_support_subgraph_holds_at_most_kg_micrographs(memory: GraphMemory, space: str) -> None:
    memory.facts.add_facts(
        [fact("Zed", f"rel_{i}", f"v{i}", f"cat{i}") for i in range(6)], space=space
    )
    narrow = FactService(memory.parts, FactConfig(localise=LocaliseConfig(kg=2, kp=24)))
    loc = narrow.localise_question(FactQuery(subject="Zed", relation="rel_3"), space=space)
    assert loc.stats.candidate_micrographs == 6 and loc.stats.micrographs == 2
    assert ("zed", "cat3") in {(s, c) for s, c, _ in loc.micrographs}
    assert loc.best is not None and loc.best.head.relation_key == "rel_3"


def test_paths_follow_dependencies_up_to_h_hops(memory: GraphMemory, space: str) -> None:
    memory.facts.add_facts(
        [
            fact("Ann", "step", "one", "chain", id="s1"),
            fact("Ann", "step2", "two", "chain", id="s2", depends_on=["s1"]),
            fact("Ann", "step3", "three", "chain", id="s3", depends_on=["s2"]),
            fact("Ann", "step4", "four", "chain", id="s4", depends_on=["s3"]),
            fact("Ann", "step5", "five", "chain", id="s5", depends_on=["s4"]),
        ],
        space=space,
    )
    loc = memory.facts.localise_question(FactQuery(subject="Ann", relation="step"), space=space)
    chains = {tuple(u.id for u in p.units) for p in loc.paths}
    assert ("s1",) in chains and ("s1", "s2", "s3", "s4") in chains
    assert max(len(c) for c in chains) == 4  # h = 3 hops
    assert all(len(p.edges) == len(p.units) - 1 for p in loc.paths)
    short = FactService(memory.parts, FactConfig(localise=LocaliseConfig(h=1, kp=3)))
    loc1 = short.localise_question(FactQuery(subject="Ann", relation="step"), space=space)
    assert len(loc1.paths) == 3 and max(len(p.units) for p in loc1.paths) == 2


def test_a_category_alone_can_anchor(memory: GraphMemory, space: str) -> None:
    crowd(memory, space, people=5)
    temp = TempUnit(
        subjects={},
        relation_key="works_at",
        relation_terms=frozenset(),
        category_key="organisation",
        context_key=None,
        moment=2**62,
        text="who works where",
    )
    loc = memory.facts.localiser.localise(space, [temp], categories={"organisation": 1.0})
    assert loc.stats.micrographs == 5
    assert {c for _, c, _ in loc.micrographs} == {"organisation"}
    assert loc.best is not None and loc.best.head.relation_key == "works_at"


def test_an_update_localises_the_slot_it_rewrites(memory: GraphMemory, space: str) -> None:
    crowd(memory, space)
    out = memory.facts.add_facts([fact("Person 3", "lives_in", "Elsewhere")], space=space).outcomes[
        0
    ]
    old = [h.unit.id for h in memory.facts.history("Person 3", space=space, relation="lives_in")]
    assert out.evidence_path == (old[0],)
    assert out.superseded == (old[0],)
    assert out.units_read <= 10


def test_look_alike_subjects_anchor_questions_but_not_updates(
    memory: GraphMemory, space: str
) -> None:
    memory.facts.add_facts(
        [fact("Alice Smith", "lives_in", "Paris", id="a1"), fact("Bob", "lives_in", "Rome")],
        space=space,
    )
    vector = memory.embedder.embed(["Alice-Smith"])[0]
    assert memory.facts.localiser.subject_anchors(space, "alice-smith", vector) == {
        "alice-smith": 1.0,
        "alice smith": pytest.approx(1.0),
    }
    # a structured question about a subject with no MicroGraph falls back to close names
    loc = memory.facts.localise_question(FactQuery(subject="Alice-Smith"), space=space)
    assert {s for s, _, _ in loc.micrographs} == {"alice smith"}
    # an update's slot is exact: another spelling is another subject
    memory.facts.add_facts([fact("Alice-Smith", "lives_in", "Lyon", id="a2")], space=space)
    assert memory.facts.get("a1", space=space).status.value == "active"
    out = memory.facts.add_facts(
        [fact("Alice Smith", "lives_in", "Nice", id="a3")], space=space
    ).outcomes[0]
    assert out.superseded == ("a1",)
    assert out.localisation is not None and out.localisation.micrographs == 1
    assert out.evidence_path == ("a1",)
