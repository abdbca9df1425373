"""Crash soak: `kill -9` of the embedded engine in the middle of a batch ingestion, many times.

    python benchmarks/soak_crash.py [--cycles 10 | --every] [--layers conversation,facts]
        [--scale 0.4] [--seed 7] [--json]

The default-suite test (tests/integration/reliability/test_crash.py) kills the engine once per
layer at 30 % and at 75 % of the writes; this repeats the same cycle `--cycles` times per layer
at a random point (seeded), with the tests' own inputs, write recorder and consistency rules
(tests/integration/reliability/{helpers,scenarios,conftest}.py). One cycle, in a fresh graph:

1. ingest the layer's input through the Python API; every write statement that returns is
   recorded ("acknowledged": FalkorDB has applied it and appended it to its AOF);
2. right after write number k (k drawn between 10 % and 90 % of an uninterrupted run's count;
   with --every, k = 1, 2, ... n-1 in turn) another thread SIGKILLs the redis-server; the
   ingestion fails with EngineUnavailable;
3. restart the server (it replays its append-only file) and check that every acknowledged
   write is there (`check_acknowledged`, statement by statement: a statement counts as lost
   when any node or finishing mark it wrote is missing) and that the layer's consistency rule
   holds (no turn without its session, no superseded unit without its successor, ...);
4. run the same ingestion again and compare the graph with the uninterrupted run's: nodes
   stored twice, relationships beyond the reference's multiset (duplicates), and whether the
   two graphs are identical (every node, relationship and lasting property).

Uses a private embedded server (temporary GRAPHMEM_HOME, a free port, the hash embedder) and
kills every redis-server it started before it exits.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import random
import signal
import socket
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from figures import Figures, add_json_out  # noqa: E402

from graphmem_neo4j.errors import EngineUnavailable  # noqa: E402
from graphmem_neo4j.memory import GraphMemory  # noqa: E402
from graphmem_neo4j.portability import dump_records  # noqa: E402
from graphmem_neo4j.store import open_store  # noqa: E402
from graphmem_neo4j.store.embedded import EmbeddedServer  # noqa: E402

# The crash tests' own inputs, write recorder and consistency rules. Imported at run time:
# the test modules are outside `make lint`'s mypy run, and a static import would make
# `mypy benchmarks/soak_crash.py` type-check them too.
_helpers = importlib.import_module("tests.integration.reliability.helpers")
_scenarios = importlib.import_module("tests.integration.reliability.scenarios")
_fixtures = importlib.import_module("tests.integration.reliability.conftest")
AckStore = _fixtures.AckStore
kill_engine = _fixtures.kill_engine
settings_for = _helpers.settings_for
check_acknowledged = _scenarios.check_acknowledged
Graph = Any  # tests/integration/reliability/helpers.py: Graph
Scenario = Any  # tests/integration/reliability/scenarios.py: Scenario

SPACE = "soak"
LAYERS: dict[str, Scenario] = {s.name: s for s in _scenarios.SCENARIOS}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Census:
    """A space read through the export records, duplicates counted rather than refused."""

    graph: Graph
    duplicate_nodes: int


def census(server: EmbeddedServer, database: str) -> Census:
    nodes: dict[tuple[str, str], dict[str, Any]] = {}
    seen: Counter[tuple[str, str]] = Counter()
    rels: list[dict[str, Any]] = []
    with GraphMemory(settings_for(server, database, batch_size=50)) as memory:
        for record in dump_records(memory, SPACE):
            if record["kind"] == "node":
                key = (record["label"], record["id"])
                seen[key] += 1
                nodes[key] = record["props"]
            else:
                rels.append(record)
    return Census(_helpers.Graph(nodes, rels), sum(n - 1 for n in seen.values()))


def rule_holds(scenario: Scenario, g: Graph) -> bool:
    """The tests' consistency rules: vocabulary, no duplicate edge, the layer's own rule."""
    try:
        _helpers.check_vocabulary(g)
        _helpers.check_no_duplicate_edges(g)
        scenario.check(g)
    except (AssertionError, KeyError):
        return False
    return True


def lost_statements(g: Graph, acked: list[tuple[str, dict[str, Any]]]) -> tuple[int, int, int]:
    """(statements checked, records checked, statements with something missing)."""
    statements = records = lost = 0
    for write in acked:
        try:
            found = check_acknowledged(g, [write])
        except (AssertionError, KeyError):
            lost += 1
            statements += 1
            continue
        if found:
            statements += 1
            records += found
    return statements, records, lost


@dataclass
class Cycle:
    layer: str
    cycle: int
    kill_after: int
    acknowledged: int
    checked_statements: int
    checked_records: int
    lost: int
    rule_after_crash: bool
    duplicated: int
    missing_after_rerun: int
    same_as_reference: bool
    restart_s: float
    killed: bool
    difference: str


@dataclass
class Engine:
    server: EmbeddedServer
    pids: set[int]

    def start(self) -> float:
        started = time.monotonic()
        status = self.server.ensure_running()
        if status.pid is not None:
            self.pids.add(status.pid)
        return time.monotonic() - started

    def _alive(self) -> list[int]:
        """The redis-servers this soak started that still run (on its port)."""
        found = []
        for pid in sorted(self.pids):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue  # gone
            if b"redis-server" in cmdline and str(self.server.port).encode() in cmdline:
                found.append(pid)
        return found

    def stop_all(self) -> int:
        """Stop the server, SIGKILL any redis-server this soak started that still runs;
        returns how many still run after that (0)."""
        with contextlib.suppress(Exception):
            self.server.stop(timeout=10)
        for pid in self._alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while self._alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        return len(self._alive())


def reference(engine: Engine, scenario: Scenario, folder: Path) -> tuple[Graph, int]:
    """The graph of an uninterrupted run and its number of write statements."""
    settings = settings_for(engine.server, f"ref_{scenario.name}", batch_size=50)
    with GraphMemory(settings) as memory:
        memory.ensure_space(SPACE)
    counting = AckStore(open_store(settings))
    with GraphMemory(settings, store=counting) as memory:
        scenario.ingest(memory, SPACE, folder)
    return census(engine.server, f"ref_{scenario.name}").graph, len(counting.acked)


def one_cycle(
    engine: Engine,
    scenario: Scenario,
    folder: Path,
    n: int,
    expected: Graph,
    kill_after: int,
) -> Cycle:
    database = f"soak_{scenario.name}_{n}"
    settings = settings_for(engine.server, database, batch_size=50)
    with GraphMemory(settings) as memory:  # schema first: the kill lands in the ingestion
        memory.ensure_space(SPACE)

    killer = threading.Thread(target=kill_engine, args=(engine.server,))

    def after_ack(count: int) -> None:
        if count == kill_after:
            killer.start()

    store = AckStore(open_store(settings), after_ack)
    killed = True
    try:
        with GraphMemory(settings, store=store) as memory:
            scenario.ingest(memory, SPACE, folder)
        killed = False  # finished before the kill landed
    except EngineUnavailable:
        pass
    if killer.ident is not None:  # started
        killer.join()
    restart = engine.start()

    recovered = census(engine.server, database)
    statements, records, lost = lost_statements(recovered.graph, store.acked)
    rule = recovered.duplicate_nodes == 0 and rule_holds(scenario, recovered.graph)

    with GraphMemory(settings) as memory:
        scenario.ingest(memory, SPACE, folder)
    final = census(engine.server, database)
    _, expected_rels = expected.shape()
    _, final_rels = final.graph.shape()
    duplicated = final.duplicate_nodes + sum((final_rels - expected_rels).values())
    missing = len(set(expected.nodes) - set(final.graph.nodes))
    missing += sum((expected_rels - final_rels).values())
    same = (
        final.duplicate_nodes == 0
        and final.graph.shape() == expected.shape()
        and rule_holds(scenario, final.graph)
    )
    return Cycle(
        scenario.name,
        n,
        kill_after,
        len(store.acked),
        statements,
        records,
        lost,
        rule,
        duplicated,
        missing,
        same,
        restart,
        killed,
        "" if same else _helpers.shape_diff(final.graph, expected),
    )


def table(cycles: list[Cycle], references: dict[str, int]) -> str:
    head = (
        "| layer | cycles (killed) | writes per run | acknowledged before kill | "
        "records verified | lost | rule broken after crash | duplicated after re-run | "
        "missing after re-run | re-run = reference | restart s (max) |"
    )
    lines = [head, "|" + "---|" * 11]
    for layer in dict.fromkeys(c.layer for c in cycles):
        mine = [c for c in cycles if c.layer == layer]
        lines.append(
            f"| {layer} | {len(mine)} ({sum(c.killed for c in mine)}) | {references[layer]} | "
            f"{sum(c.acknowledged for c in mine)} | {sum(c.checked_records for c in mine)} | "
            f"{sum(c.lost for c in mine)} | {sum(not c.rule_after_crash for c in mine)} | "
            f"{sum(c.duplicated for c in mine)} | {sum(c.missing_after_rerun for c in mine)} | "
            f"{sum(c.same_as_reference for c in mine)}/{len(mine)} | "
            f"{max(c.restart_s for c in mine):.2f} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--cycles", type=int, default=10, help="kill cycles per layer")
    parser.add_argument("--layers", default="conversation,facts", help=",".join(LAYERS))
    parser.add_argument("--scale", type=float, default=0.4, help="input size (tests: 0.4)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--every",
        action="store_true",
        help="instead of --cycles random points, kill once after each write 1 .. n-1 in turn",
    )
    parser.add_argument("--json", action="store_true", help="also print every cycle as JSON")
    add_json_out(parser)
    args = parser.parse_args()
    figures = Figures("soak_crash")
    layers = [LAYERS[name] for name in args.layers.split(",")]
    rng = random.Random(args.seed)

    for key in [k for k in os.environ if k.startswith("GRAPHMEM_")]:
        del os.environ[key]
    with tempfile.TemporaryDirectory(prefix="graphmem-soak-") as tmp:
        root = Path(tmp)
        port = free_port()
        os.environ.update(
            GRAPHMEM_HOME=str(root / "home"),
            GRAPHMEM_EMBEDDED_PORT=str(port),
            GRAPHMEM_EMBEDDER="hash",
        )
        engine = Engine(EmbeddedServer(root / "home", port), set())
        cycles: list[Cycle] = []
        references: dict[str, int] = {}
        started = time.monotonic()
        left = -1
        try:
            engine.start()
            for scenario in layers:
                folder = root / scenario.name
                folder.mkdir()
                scenario.files(folder, args.scale, "")
                expected, writes = reference(engine, scenario, folder)
                references[scenario.name] = writes
                points = (
                    list(range(1, writes))
                    if args.every
                    else [max(1, int(writes * rng.uniform(0.1, 0.9))) for _ in range(args.cycles)]
                )
                for n, kill_after in enumerate(points, 1):
                    cycle = one_cycle(engine, scenario, folder, n, expected, kill_after)
                    cycles.append(cycle)
                    print(
                        f"{scenario.name} cycle {n}: killed after write {kill_after}/{writes}, "
                        f"{cycle.acknowledged} acknowledged, {cycle.lost} lost, "
                        f"{cycle.duplicated} duplicated, re-run = reference: "
                        f"{cycle.same_as_reference}",
                        file=sys.stderr,
                        flush=True,
                    )
                    if cycle.difference:
                        print(f"  re-run vs reference:\n{cycle.difference}", file=sys.stderr)
        finally:
            left = engine.stop_all()
        elapsed = time.monotonic() - started
    print(table(cycles, references))
    print(
        f"\n{len(cycles)} cycles, {len(engine.pids)} redis-server processes started (port "
        f"{engine.server.port}), "
        f"{left} still running at exit; {elapsed:.0f} s wall (scale {args.scale}, "
        f"seed {args.seed})"
    )
    if args.json:
        print(json.dumps([asdict(c) for c in cycles], indent=1))
    bad = [
        c
        for c in cycles
        if c.lost or c.duplicated or c.missing_after_rerun or not c.rule_after_crash
    ]
    figures.add("kill points", len(cycles))
    figures.add("acknowledged writes lost", sum(c.lost for c in cycles))
    figures.add("writes duplicated", sum(c.duplicated for c in cycles))
    figures.add("re-runs equal to an uninterrupted run", sum(c.same_as_reference for c in cycles))
    figures.write(args.json_out)
    return 1 if bad or not all(c.same_as_reference for c in cycles) else 0


if __name__ == "__main__":
    sys.exit(main())
