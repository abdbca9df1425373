"""The LoCoMo benchmark's paired bootstrap: what an ablation costs, with its interval."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.benchmark_module import load_benchmark


@pytest.fixture(scope="module")
def locomo() -> ModuleType:
    return load_benchmark("locomo")


def test_identical_systems_add_nothing(locomo: ModuleType) -> None:
    scores = [0.0, 0.5, 1.0, 1.0, 0.25]
    assert locomo.paired_interval(scores, list(scores)) == (0.0, 0.0, 0.0)


def test_a_gain_on_every_question_has_an_interval_above_zero(locomo: ModuleType) -> None:
    mean, low, high = locomo.paired_interval([1.0] * 40, [0.0] * 40)
    assert (mean, low, high) == (1.0, 1.0, 1.0)


def test_the_interval_brackets_the_mean_and_narrows_with_more_questions(
    locomo: ModuleType,
) -> None:
    few = locomo.paired_interval([1.0, 0.0] * 10, [0.0] * 20)
    many = locomo.paired_interval([1.0, 0.0] * 200, [0.0] * 400)
    for mean, low, high in (few, many):
        assert mean == pytest.approx(0.5)
        assert low < mean < high
    assert many[2] - many[1] < few[2] - few[1]
    assert many[1] > 0.4 and many[2] < 0.6


def test_the_same_seed_gives_the_same_interval(locomo: ModuleType) -> None:
    with_it, without = [1.0, 0.0, 0.5, 1.0, 0.0], [0.0, 0.0, 1.0, 0.5, 0.0]
    assert locomo.paired_interval(with_it, without) == locomo.paired_interval(with_it, without)


def test_unpaired_lists_are_refused(locomo: ModuleType) -> None:
    with pytest.raises(ValueError, match="same"):
        locomo.paired_interval([1.0, 0.0], [1.0])
    with pytest.raises(ValueError, match="same"):
        locomo.paired_interval([], [])


def test_each_paired_ablation_gets_a_row_and_an_unpaired_one_none(
    locomo: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    table = locomo.Table()
    questions = [("conv-a", 1, ["d1"]), ("conv-a", 4, ["d2"]), ("conv-b", 1, ["d3"])]
    for space, category, evidence in questions:
        table.add("hybrid", category, evidence, evidence, space)
        table.add(
            "hybrid -graph (all)", category, [] if category == 1 else evidence, evidence, space
        )
    table.add("hybrid -half", 1, ["d1"], ["d1"], "conv-a")
    locomo.added_by_components(table)
    lines = capsys.readouterr().out.splitlines()
    graph = [line for line in lines if line.startswith("hybrid -graph (all)")]
    assert len(graph) == 1
    # Two of three questions lose their evidence overall; both multi-hop questions do.
    assert "+0.667" in graph[0] and "+1.000 [+1.000, +1.000]" in graph[0]
    assert not any(line.startswith("hybrid -half") for line in lines)


def test_data_without_multi_hop_questions_prints_a_dash_instead_of_failing(
    locomo: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    table = locomo.Table()
    for system, hits in (("hybrid", ["d1"]), ("hybrid -graph (all)", [])):
        table.add(system, 4, hits, ["d1"], "conv-a")
    locomo.added_by_components(table)
    row = next(line for line in capsys.readouterr().out.splitlines() if "-graph" in line)
    assert "+1.000 [+1.000, +1.000]" in row
    assert row.rstrip().endswith("-")


def test_the_core_grid_holds_raw_and_relative_dense_weights(locomo: ModuleType) -> None:
    from graphmem_neo4j.conversation.models import ConversationConfig

    grid = locomo.core_grid(
        ConversationConfig(), dense=(2.0, 3.0), previous=(0.7,), speaker=(0.0,), relative=(0.5,)
    )
    assert sorted(grid) == [
        "core dense=2.0 previous=0.7 speaker=0.0",
        "core dense=3.0 previous=0.7 speaker=0.0",
        "core relative=0.5 previous=0.7 speaker=0.0",
    ]
    assert grid["core relative=0.5 previous=0.7 speaker=0.0"].weights.dense_relative
    assert not grid["core dense=3.0 previous=0.7 speaker=0.0"].weights.dense_relative


def test_leave_one_out_scores_each_fold_with_what_the_others_chose(locomo: ModuleType) -> None:
    table = locomo.Table()
    # "core a" wins on conv-1 and conv-2, "core b" on conv-3: held out, conv-3 gets a's score.
    for name, scores in (("core a", (1.0, 1.0, 0.0)), ("core b", (0.0, 0.0, 1.0))):
        for space, score in zip(("conv-1", "conv-2", "conv-3"), scores, strict=False):
            table.add(name, 1, ["t"] if score else ["x"], ["t"], space)
    table.add("hybrid", 1, ["t"], ["t"], "conv-1")
    folds = locomo.cross_validate(table, ["conv-1", "conv-2", "conv-3"], prefix="core ")
    assert {s: f["chosen"] for s, f in folds.items()} == {
        "conv-1": "a",
        "conv-2": "a",
        "conv-3": "a",
    }
    assert [r[2] for r in folds["conv-3"]["questions"]] == [0.0]
    assert locomo.mean_interval([1.0, 1.0, 1.0]) == (1.0, 1.0, 1.0)
