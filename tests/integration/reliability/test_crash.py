"""Crash safety: `kill -9` of the embedded engine, and of the `graphmem` process, in the middle
of a batch ingestion of each layer (turns, facts, tasks, trajectories).

After a restart every acknowledged write is there (a write is acknowledged when its statement
returned to the client; the embedded server has then written and fsynced it to its append-only
file), no change is half-applied (each layer's consistency rule holds), and running the same
ingestion again finishes the job: the graph ends exactly as after an uninterrupted run, nothing
twice.
"""

from __future__ import annotations

import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest

from graphmem_neo4j.errors import EngineUnavailable
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.store import open_store
from graphmem_neo4j.store.embedded import EmbeddedServer

from .conftest import AckStore, kill_engine
from .helpers import (
    Graph,
    check_no_duplicate_edges,
    check_vocabulary,
    cli_env,
    graphmem,
    settings_for,
    shape_diff,
    snapshot,
    start_graphmem,
)
from .scenarios import SCENARIOS, Scenario, check_acknowledged

SPACE = "crash"


def _check_graph(scenario: Scenario, g: Graph) -> None:
    check_vocabulary(g)
    check_no_duplicate_edges(g)
    scenario.check(g)


def _snapshot(server: EmbeddedServer, database: str) -> Graph:
    with GraphMemory(settings_for(server, database, batch_size=50)) as memory:
        return snapshot(memory, SPACE)


def _count(memory: GraphMemory, label: str) -> int:
    rows = memory.store.read("core/count_labels", {"space": SPACE})
    return next((int(r["count"]) for r in rows if r["label"] == label), 0)


@pytest.mark.parametrize("fraction", [0.3, 0.75])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=str)
def test_engine_killed_mid_ingestion_keeps_every_acknowledged_write(
    private_server: EmbeddedServer, tmp_path: Path, scenario: Scenario, fraction: float
) -> None:
    scenario.files(tmp_path, 0.4)
    reference = settings_for(private_server, "reference", batch_size=50)
    settings = settings_for(private_server, "crashed", batch_size=50)
    for graph in (reference, settings):  # schema first: the kill lands in the ingestion itself
        with GraphMemory(graph) as memory:
            memory.ensure_space(SPACE)
    # An uninterrupted run gives the number of writes and the graph to end with.
    counting = AckStore(open_store(reference))
    with GraphMemory(reference, store=counting) as memory:
        scenario.ingest(memory, SPACE, tmp_path)
    expected = _snapshot(private_server, "reference")
    kill_at = max(1, int(len(counting.acked) * fraction))

    # The same run, with the engine SIGKILLed from another thread right after write `kill_at`
    # returned, so the next statement is usually in flight when the server dies.
    killer = threading.Thread(target=kill_engine, args=(private_server,))

    def after_ack(n: int) -> None:
        if n == kill_at:
            killer.start()

    store = AckStore(open_store(settings), after_ack)
    with GraphMemory(settings, store=store) as memory, pytest.raises(EngineUnavailable):
        scenario.ingest(memory, SPACE, tmp_path)
    killer.join()
    assert kill_at <= len(store.acked) < len(counting.acked)

    private_server.ensure_running()
    recovered = _snapshot(private_server, "crashed")
    assert check_acknowledged(recovered, store.acked) > 0
    _check_graph(scenario, recovered)

    with GraphMemory(settings) as memory:
        scenario.ingest(memory, SPACE, tmp_path)
    final = _snapshot(private_server, "crashed")
    _check_graph(scenario, final)
    assert final.label_counts() == expected.label_counts()
    assert final.shape() == expected.shape(), shape_diff(final, expected)


def _run_all(commands: list[list[str]], env: dict[str, str]) -> None:
    for args in commands:
        done = graphmem([*args, "--space", SPACE], env)
        assert done.returncode == 0, done.stderr


_EXPECTED: dict[str, Graph] = {}


def _expected(scenario: Scenario, server: EmbeddedServer, folder: Path) -> Graph:
    """The graph an uninterrupted `graphmem` run of the scenario leaves (computed once)."""
    if scenario.name not in _EXPECTED:
        env = cli_env(server, f"ref_{uuid.uuid4().hex[:8]}")
        _run_all(scenario.files(folder, 1.0), env)
        _EXPECTED[scenario.name] = _snapshot(server, env["GRAPHMEM_DATABASE"])
    return _EXPECTED[scenario.name]


def _start_and_wait_for_writes(
    commands: list[list[str]], env: dict[str, str], server: EmbeddedServer, scenario: Scenario
) -> subprocess.Popen[str]:
    """Runs all commands but the last, starts the last, and returns it once it has written
    some of its `scenario.started` nodes."""
    _run_all(commands[:-1], env)
    with GraphMemory(settings_for(server, env["GRAPHMEM_DATABASE"])) as memory:
        before = _count(memory, scenario.started)
        process = start_graphmem([*commands[-1], "--space", SPACE], env)
        deadline = time.monotonic() + 120
        while _count(memory, scenario.started) <= before:
            assert process.poll() is None, "finished before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.01)
    return process


@pytest.mark.parametrize("scenario", SCENARIOS, ids=str)
def test_graphmem_process_killed_mid_ingestion_is_finished_by_a_rerun(
    falkordb_server: EmbeddedServer,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    scenario: Scenario,
) -> None:
    expected = _expected(scenario, falkordb_server, tmp_path_factory.mktemp("reference"))
    commands = scenario.files(tmp_path, 1.0)
    env = cli_env(falkordb_server, f"killed_{uuid.uuid4().hex[:8]}")
    process = _start_and_wait_for_writes(commands, env, falkordb_server, scenario)
    process.kill()
    assert process.wait() == -9
    process.communicate()

    partial = _snapshot(falkordb_server, env["GRAPHMEM_DATABASE"])
    _check_graph(scenario, partial)
    assert partial.shape() != expected.shape(), "the kill came after the last write"

    _run_all(commands, env)
    final = _snapshot(falkordb_server, env["GRAPHMEM_DATABASE"])
    _check_graph(scenario, final)
    assert final.shape() == expected.shape(), shape_diff(final, expected)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=str)
def test_engine_killed_under_a_graphmem_process_is_one_clear_error(
    private_server: EmbeddedServer,
    falkordb_server: EmbeddedServer,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    scenario: Scenario,
) -> None:
    expected = _expected(scenario, falkordb_server, tmp_path_factory.mktemp("reference"))
    commands = scenario.files(tmp_path, 1.0)

    env = cli_env(private_server, "crashed")
    process = _start_and_wait_for_writes(commands, env, private_server, scenario)
    kill_engine(private_server)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 3, err
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot reach FalkorDB"), err
    assert private_server.password() not in out + err

    private_server.ensure_running()
    _check_graph(scenario, _snapshot(private_server, "crashed"))
    _run_all(commands, env)
    final = _snapshot(private_server, "crashed")
    _check_graph(scenario, final)
    assert final.shape() == expected.shape(), shape_diff(final, expected)
