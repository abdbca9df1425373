import random

import pytest

from graphmem_neo4j.experience.diff import diff_graphs
from graphmem_neo4j.experience.graph import trajectory_graph
from graphmem_neo4j.experience.perturb import INVALID_OBSERVATION, PERTURB_KINDS, perturb

from .helpers import run

EXPERT = run(
    ("go to countertop 1", "On the countertop 1, you see a mug 1, and a bread 2."),
    ("take mug 1 from countertop 1", "You pick up the mug 1 from the countertop 1."),
    ("go to sinkbasin 1", "On the sinkbasin 1, you see nothing."),
    ("clean mug 1 with sinkbasin 1", "You clean the mug 1 using the sinkbasin 1."),
    ("go to cabinet 2", "The cabinet 2 is closed."),
    ("open cabinet 2", "You open the cabinet 2."),
    ("put mug 1 in/on cabinet 2", "You put the mug 1 in/on the cabinet 2."),
)


@pytest.mark.parametrize("seed", range(5))
def test_a_replacement_is_undone_by_one_relabel(seed: int) -> None:
    p = perturb(EXPERT, "replace", random.Random(seed))
    assert p is not None and p.perturbed.kind == "exploration" and p.perturbed.reward == 0.0
    changed = [
        (a.action, b.action) for a, b in zip(p.perturbed.steps, EXPERT.steps, strict=True) if a != b
    ]
    assert len(changed) == 1 and p.renamed == {changed[0][0]: changed[0][1]}
    ops = p.true_edit_path()
    assert [(op.op, op.action, op.new_action) for op in ops] == [
        ("relabel_node", changed[0][0], changed[0][1])
    ]


@pytest.mark.parametrize("seed", range(5))
def test_inserted_attempts_fail_and_are_undone_by_deletions(seed: int) -> None:
    p = perturb(EXPERT, "insert_invalid", random.Random(seed))
    assert p is not None
    added = [s for s in p.perturbed.steps if s not in EXPERT.steps]
    assert 1 <= len(added) <= 3
    assert all(s.observation == INVALID_OBSERVATION for s in added)
    ops = p.true_edit_path()
    assert sorted(str(op.action) for op in ops if op.op == "delete_node") == sorted(
        s.action for s in added
    )
    assert {op.op for op in ops} == {"delete_node", "delete_edge"}


def test_a_deleted_step_is_undone_by_its_insertion() -> None:
    p = perturb(EXPERT, "delete", random.Random(1))
    assert p is not None and len(p.perturbed.steps) == len(EXPERT.steps) - 1
    (missing,) = [s for s in EXPERT.steps if s not in p.perturbed.steps]
    ops = p.true_edit_path()
    assert [op.action for op in ops if op.op == "insert_node"] == [missing.action]


def test_a_swap_changes_only_edges() -> None:
    p = perturb(EXPERT, "swap", random.Random(2))
    assert p is not None
    assert sorted(p.perturbed.steps, key=str) == sorted(EXPERT.steps, key=str)
    assert p.perturbed.steps != EXPERT.steps
    ops = p.true_edit_path()
    assert ops and all(op.op.endswith("_edge") for op in ops)


@pytest.mark.parametrize("kind", PERTURB_KINDS)
def test_the_matcher_recovers_each_kind_here(kind: str) -> None:
    p = perturb(EXPERT, kind, random.Random(3))  # type: ignore[arg-type]
    assert p is not None
    found = diff_graphs(trajectory_graph(p.perturbed), trajectory_graph(EXPERT)).edit_path
    assert list(found) == p.true_edit_path()


def test_nothing_to_perturb() -> None:
    repeated = run(("go to a 1", "ok"), ("go to a 1", "ok"))
    assert perturb(repeated, "replace", random.Random(0)) is None
    assert perturb(repeated, "swap", random.Random(0)) is None
    with pytest.raises(ValueError, match="unknown perturbation"):
        perturb(EXPERT, "shuffle", random.Random(0))  # type: ignore[arg-type]
