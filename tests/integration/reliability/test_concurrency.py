"""Concurrency: two `graphmem` processes ingesting at once, into one space (different inputs,
and the same input) and into two spaces. Nothing is lost, nothing is stored twice, the layer's
consistency rule holds, and both finish (no deadlock: each run has a time limit)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from graphmem_neo4j.memory import GraphMemory

from .conftest import Engine
from .helpers import (
    Graph,
    check_no_duplicate_edges,
    check_vocabulary,
    graphmem,
    shape_diff,
    snapshot,
)
from .scenarios import SCENARIOS, Scenario

SCALE = 0.4


def _run(commands: list[list[str]], env: dict[str, str], space: str) -> None:
    for args in commands:
        done = graphmem([*args, "--space", space], env, timeout=300)
        assert done.returncode == 0, done.stderr


def _together(*jobs: tuple[list[list[str]], dict[str, str], str]) -> None:
    """Run each job (its commands in order) in its own thread, all at once."""
    errors: list[BaseException] = []

    def work(job: tuple[list[list[str]], dict[str, str], str]) -> None:
        try:
            _run(*job)
        except BaseException as e:  # reported below, in the test's thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


def _graph(engine: Engine, env: dict[str, str], space: str) -> Graph:
    with GraphMemory(engine.settings(env)) as memory:
        g = snapshot(memory, space)
    check_vocabulary(g)
    check_no_duplicate_edges(g)
    return g


@pytest.mark.parametrize("scenario", SCENARIOS, ids=str)
def test_two_writers_in_one_space_lose_nothing(
    engine: Engine, tmp_path: Path, scenario: Scenario
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = scenario.files(tmp_path / "a", SCALE, "a-")
    second = scenario.files(tmp_path / "b", SCALE, "b-")
    reference = engine.fresh()
    _run(first, reference, "one")
    _run(second, reference, "one")
    expected = _graph(engine, reference, "one")

    env = engine.fresh()
    _together((first, env, "one"), (second, env, "one"))
    got = _graph(engine, env, "one")
    scenario.check(got)
    for label in scenario.inputs:
        assert got.ids(label) == expected.ids(label), label
    # what is learnt depends on the order the two inputs interleave in, but a lesson is
    # learnt once: no two active insights say the same
    texts = [p["text"] for p in got.of("Insight").values() if p["active"]]
    assert len(texts) == len(set(texts))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=str)
def test_two_writers_of_the_same_input_store_it_once(
    engine: Engine, tmp_path: Path, scenario: Scenario
) -> None:
    commands = scenario.files(tmp_path, SCALE, "")
    reference = engine.fresh()
    _run(commands, reference, "one")
    expected = _graph(engine, reference, "one")

    env = engine.fresh()
    _together((commands, env, "one"), (commands, env, "one"))
    got = _graph(engine, env, "one")
    scenario.check(got)
    assert got.label_counts() == expected.label_counts()
    assert got.type_counts() == expected.type_counts()


@pytest.mark.parametrize("scenario", SCENARIOS, ids=str)
def test_two_writers_in_two_spaces_each_get_exactly_their_input(
    engine: Engine, tmp_path: Path, scenario: Scenario
) -> None:
    commands = scenario.files(tmp_path, SCALE, "")
    reference = engine.fresh()
    for space in ("left", "right"):  # (some ids are derived from the space name)
        _run(commands, reference, space)
    expectations = {space: _graph(engine, reference, space) for space in ("left", "right")}

    env = engine.fresh()
    _together((commands, env, "left"), (commands, env, "right"))
    for space in ("left", "right"):
        got = _graph(engine, env, space)
        expected = expectations[space]
        scenario.check(got)
        for label in scenario.inputs:
            assert got.of(label).keys() == expected.of(label).keys(), label
        if scenario.exact_neighbours:
            assert got.shape() == expected.shape(), shape_diff(got, expected)
        else:  # the same nodes, edges may differ where the shared vector index answered
            assert got.label_counts() == expected.label_counts()
