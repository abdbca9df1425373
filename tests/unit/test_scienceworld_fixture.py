"""ScienceWorld as a second world, on a small fixture cut from the simulator's runs
(benchmarks/scienceworld_data.py --trim-from): its own action language, continuous rewards,
structure read from its trajectories and learnt from its goals, and edit paths."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from graphmem_neo4j.experience.diff import diff_graphs, edit_path
from graphmem_neo4j.experience.graph import trajectory_graph
from graphmem_neo4j.experience.models import Trajectory
from graphmem_neo4j.experience.parsing import parse_file
from graphmem_neo4j.experience.perturb import perturb
from graphmem_neo4j.task_model import GoalModel
from graphmem_neo4j.task_structure import trajectory_structure

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "scienceworld_small.jsonl"


@pytest.fixture(scope="module")
def runs() -> list[Trajectory]:
    return parse_file(FIXTURE, kind="expert")


def experts(runs: list[Trajectory]) -> list[Trajectory]:
    return [t for t in runs if t.metadata["run"] == "expert"]


def test_the_fixture_holds_experts_and_runs_that_really_failed(runs: list[Trajectory]) -> None:
    kinds = Counter(str(t.metadata["run"]) for t in runs)
    assert kinds["expert"] >= 6 and kinds["partial"] + kinds["perturbed"] >= 4
    for t in runs:
        assert t.reward == max(0, min(int(t.metadata["score"]), 100)) / 100
        assert (t.reward == 1.0) == (t.metadata["run"] == "expert")
    assert len({t.metadata["task_type"] for t in runs}) >= 3


def test_each_task_type_shows_one_structure_across_its_variations(runs: list[Trajectory]) -> None:
    by_type: dict[str, set[str | None]] = {}
    for t in experts(runs):
        by_type.setdefault(str(t.metadata["task_type"]), set()).add(
            trajectory_structure([s.action for s in t.steps])
        )
    assert all(len(v) == 1 and None not in v for v in by_type.values()), by_type
    assert len({next(iter(v)) for v in by_type.values()}) >= 2


def test_the_goal_model_reads_an_unseen_variation(runs: list[Trajectory]) -> None:
    """Learnt on each type's first variation, it reads the others' goals right or abstains,
    never wrong."""
    first: dict[str, Trajectory] = {}
    later: list[Trajectory] = []
    for t in experts(runs):
        kind = str(t.metadata["task_type"])
        if kind in first:
            later.append(t)
        else:
            first[kind] = t
    structure = {id(t): trajectory_structure([s.action for s in t.steps]) for t in experts(runs)}
    labelled = [(t.task, str(structure[id(t)])) for t in first.values()]
    model = GoalModel.fit(labelled * 2)  # twice: a space past its warm-up
    answers = [(model.predict(t.task), structure[id(t)]) for t in later]
    assert later and all(got in (None, want) for got, want in answers)
    assert any(got == want for got, want in answers)


def test_edit_paths_recover_changes_injected_into_scienceworld_runs(
    runs: list[Trajectory],
) -> None:
    rng = random.Random(7)
    hit = predicted = true_total = 0
    for expert in experts(runs):
        for kind in ("delete", "swap", "insert_invalid"):
            p = perturb(expert, kind, rng)  # type: ignore[arg-type]
            if p is None:
                continue
            g1, g2 = trajectory_graph(p.perturbed), trajectory_graph(expert)
            found = Counter(
                op.as_dict()["op"] + repr(op.as_dict()) for op in diff_graphs(g1, g2).edit_path
            )
            truth = Counter(
                op.as_dict()["op"] + repr(op.as_dict())
                for op in edit_path(g1, g2, p.true_mapping(g1, g2))
            )
            hit += sum((found & truth).values())
            predicted += sum(found.values())
            true_total += sum(truth.values())
    assert true_total > 0
    assert hit / true_total >= 0.9 and hit / predicted >= 0.9


def test_a_failed_run_differs_from_its_expert(runs: list[Trajectory]) -> None:
    by_game = {(t.metadata["task_type"], t.metadata["variation"]): t for t in experts(runs)}
    failed = [t for t in runs if t.metadata["run"] != "expert"]
    assert failed
    for t in failed:
        gold = by_game[(t.metadata["task_type"], t.metadata["variation"])]
        path = diff_graphs(trajectory_graph(t), trajectory_graph(gold)).edit_path
        assert path, t.id
