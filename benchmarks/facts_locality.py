"""Locality of the facts layer: do updates stay local as the store grows?

    python benchmarks/facts_locality.py [--sizes 1000 10000 100000] [--updates 200]
                                        [--embedder hash|minilm]

One store on an embedded FalkorDB grows through `--sizes` MemoryUnits (people with 4-5 facts
each: where they live, work, what they like and drink, and for one in ten a club membership that
depends on where they live). At each size, `--updates` people move (a dated `lives_in` update
through the full coordinated pipeline: localisation, slot rewrite, dependents) and the same
number of questions are asked. Printed per size: units read per update (support subgraph, slot
versions and dependents the queries returned), units the engine walked under the anchored
subjects, and latency of localisation and of whole updates and questions (p50/p95).

The store is built with the facts layer's own batched path (new slots are written without a
rewrite). The default embedder is the 64-d hash embedder: embedding 100k texts with
all-MiniLM-L6-v2 on a shared 2-core machine takes too long for a benchmark; the figures here
are about the graph, not the model.
"""

from __future__ import annotations

import argparse
import random
import signal
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from figures import Figures, add_json_out

from graphmem_neo4j.embedder import Embedder, HashEmbedder, SentenceTransformerEmbedder
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store.embedded import EmbeddedServer

CITIES = [f"City {i}" for i in range(400)]
FIRMS = [f"Firm {i}" for i in range(300)]
FOODS = [f"Dish {i}" for i in range(200)]
DRINKS = [f"Drink {i}" for i in range(100)]
SPACE = "locality"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def person_facts(i: int, rng: random.Random) -> list[dict[str, Any]]:
    name = f"Person {i:06d}"
    home = {
        "id": f"p{i}-home",
        "subject": name,
        "relation": "lives_in",
        "object": rng.choice(CITIES),
        "category": "location",
        "valid_from": "2018-01-01",
    }
    facts = [
        home,
        {
            "subject": name,
            "relation": "works_at",
            "object": rng.choice(FIRMS),
            "category": "organisation",
            "valid_from": "2018-01-01",
        },
        {
            "subject": name,
            "relation": "likes",
            "object": rng.choice(FOODS),
            "category": "preference",
            "valid_from": "2018-01-01",
        },
        {
            "subject": name,
            "relation": "drinks",
            "object": rng.choice(DRINKS),
            "category": "preference",
            "context": "in the evening",
            "valid_from": "2018-01-01",
        },
    ]
    if i % 10 == 0:
        facts.append(
            {
                "subject": name,
                "relation": "local_club",
                "object": f"{home['object']} club",
                "category": "activity",
                "valid_from": "2018-02-01",
                "depends_on": [home["id"]],
            }
        )
    return facts


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def grow(memory: GraphMemory, people: range, rng: random.Random) -> float:
    started = time.perf_counter()
    batch: list[dict[str, Any]] = []
    for i in people:
        batch += person_facts(i, rng)
        if len(batch) >= 5000:
            memory.facts.add_facts(batch, space=SPACE)
            batch = []
    if batch:
        memory.facts.add_facts(batch, space=SPACE)
    return time.perf_counter() - started


def measure(
    memory: GraphMemory, population: int, updates: int, round_no: int, rng: random.Random
) -> dict[str, Any]:
    read, scanned, loc_ms, upd_ms, ask_ms, ask_read, outdated = [], [], [], [], [], [], 0
    movers = rng.sample(range(population), updates)
    for n, i in enumerate(movers):
        fact = {
            "subject": f"Person {i:06d}",
            "relation": "lives_in",
            "object": rng.choice(CITIES) + f" r{round_no}",
            "category": "location",
            "valid_from": f"{2019 + round_no}-0{1 + n % 9}-01",
        }
        started = time.perf_counter()
        outcome = memory.facts.add_facts([fact], space=SPACE).outcomes[0]
        upd_ms.append((time.perf_counter() - started) * 1000)
        assert outcome.localisation is not None and outcome.superseded
        read.append(outcome.units_read)
        scanned.append(outcome.localisation.units_scanned)
        loc_ms.append(outcome.localisation.elapsed_ms)
        outdated += len(outcome.outdated)
    for i in rng.sample(range(population), updates):
        started = time.perf_counter()
        result = memory.facts.ask(f"Where does Person {i:06d} live?", space=SPACE, k=3)
        ask_ms.append((time.perf_counter() - started) * 1000)
        ask_read.append(result.stats.units_read)
        assert result.answer is not None and result.answer.subject == f"Person {i:06d}"
    return {
        "read_mean": statistics.fmean(read),
        "read_p95": pct(read, 0.95),
        "read_max": max(read),
        "scanned_mean": statistics.fmean(scanned),
        "loc_p50": statistics.median(loc_ms),
        "loc_p95": pct(loc_ms, 0.95),
        "upd_p50": statistics.median(upd_ms),
        "upd_p95": pct(upd_ms, 0.95),
        "ask_p50": statistics.median(ask_ms),
        "ask_p95": pct(ask_ms, 0.95),
        "ask_read": statistics.fmean(ask_read),
        "outdated": outdated,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--updates", type=int, default=200)
    parser.add_argument("--embedder", choices=("hash", "minilm"), default="hash")
    parser.add_argument("--seed", type=int, default=11)
    add_json_out(parser)
    args = parser.parse_args()
    out = Figures("facts_locality")
    # a terminated run still stops its embedded server (the `finally` below)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    embedder: Embedder = (
        HashEmbedder(64) if args.embedder == "hash" else SentenceTransformerEmbedder()
    )
    rng = random.Random(args.seed)
    rows = []
    with tempfile.TemporaryDirectory() as home:
        server = EmbeddedServer(Path(home), free_port())
        server.ensure_running()
        try:
            settings = Settings(
                home=Path(home), embedded_port=server.port, database="facts_locality"
            )
            with GraphMemory(settings, embedder=embedder) as memory:
                memory.init()
                people = 0
                for round_no, size in enumerate(sorted(args.sizes)):
                    target = size * 10 // 41  # 4.1 units per person
                    build = grow(memory, range(people, target), rng)
                    people = max(people, target)
                    units = memory.stats(SPACE)["nodes"].get("MemoryUnit", 0)
                    figures = measure(memory, people, args.updates, round_no, rng)
                    rows.append((size, units, build, figures))
                    print(
                        f"size {size:>7}: {units} units ({people} people) built in {build:.0f} s; "
                        f"update reads {figures['read_mean']:.1f} units "
                        f"(p95 {figures['read_p95']}), "
                        f"localisation p95 {figures['loc_p95']:.1f} ms",
                        flush=True,
                    )
        finally:
            server.stop()
    print()
    print(
        f"{'units':>8} {'read/upd':>9} {'p95':>5} {'max':>5} {'walked':>7} {'loc p50':>8} "
        f"{'loc p95':>8} {'upd p50':>8} {'upd p95':>8} {'ask p50':>8} {'ask p95':>8} "
        f"{'ask read':>8}"
    )
    for _, units, _, f in rows:
        print(
            f"{units:>8} {f['read_mean']:>9.2f} {f['read_p95']:>5} {f['read_max']:>5} "
            f"{f['scanned_mean']:>7.2f} {f['loc_p50']:>7.1f}ms {f['loc_p95']:>7.1f}ms "
            f"{f['upd_p50']:>7.1f}ms {f['upd_p95']:>7.1f}ms {f['ask_p50']:>7.1f}ms "
            f"{f['ask_p95']:>7.1f}ms {f['ask_read']:>8.2f}"
        )
    first, last = rows[0][3], rows[-1][3]
    print(
        f"\nunits read per update, largest / smallest store: "
        f"{last['read_mean'] / first['read_mean']:.2f}x (target: within 2x); "
        f"p95 localisation latency at {rows[-1][1]} units: {last['loc_p95']:.1f} ms"
    )
    for _, units, _, f in rows:
        out.add(f"units read per update at {units} units", f["read_mean"])
    out.add(
        "units read per update, largest / smallest store",
        last["read_mean"] / first["read_mean"],
        "x",
    )
    out.add("localisation p95, largest store", last["loc_p95"], "ms")
    out.write(args.json_out)


if __name__ == "__main__":
    main()
