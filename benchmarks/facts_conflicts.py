"""Conflict benchmark of the facts layer (HiGram Table 2-3 setting, our generator).

    python benchmarks/facts_conflicts.py [--per-kind 200] [--replicas 3] [--embedder minilm|hash]

Generates dynamic, static and conditional conflict scenarios (benchmarks/facts_conflict_data.py),
ingests the same fact stream under three update policies in one run, on one embedded FalkorDB:

- coordinated: HiGram's localisation and coordinated rewriting (the facts layer);
- append-only: every fact stays active (insertion-based updating);
- relation-level: the newest arrival overwrites the active units of its (subject, relation),
  ignoring context, confidence, valid time and dependencies (isolated updating);

then asks every question in natural language with `facts ask` and prints, per conflict type:
answer accuracy (AA), gold evidence in the top 3 (SEH@3), update-order consistency (UOCS: the
same final view of each scenario's subject under `--replicas` random orders of its commuting
updates), static conflict recognition (CRS: the contradicting claim kept as `pending`), and
for dependents: outdated when their only support changed, kept when other support remains.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import socket
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from facts_conflict_data import KINDS, Generator, Scenario, stream
from figures import Figures, add_json_out

from graphmem_neo4j.embedder import Embedder, HashEmbedder, SentenceTransformerEmbedder
from graphmem_neo4j.facts.config import FactConfig
from graphmem_neo4j.facts.keys import name_key
from graphmem_neo4j.facts.models import UpdatePolicy
from graphmem_neo4j.facts.service import FactService
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store.embedded import EmbeddedServer

POLICIES = (UpdatePolicy.COORDINATED, UpdatePolicy.APPEND_ONLY, UpdatePolicy.RELATION_LEVEL)
CHUNK = 64


class CachedEmbedder:
    """The same texts come back in every policy and replica: embed each once."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self._cache: dict[str, list[float]] = {}

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            self._cache.update(zip(missing, self.inner.embed(missing), strict=True))
        return [self._cache[t] for t in texts]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ingest(
    memory: GraphMemory, policy: UpdatePolicy, facts: list[dict[str, Any]], space: str
) -> float:
    service = FactService(memory.parts, FactConfig(policy=policy))
    started = time.perf_counter()
    for start in range(0, len(facts), CHUNK):
        service.add_facts(facts[start : start + CHUNK], space=space)
    return time.perf_counter() - started


def views(memory: GraphMemory, space: str, scenarios: list[Scenario]) -> dict[str, frozenset[Any]]:
    return {
        sc.id: frozenset(
            (u.relation_key, u.object_key, u.context_key)
            for u in memory.facts.current(sc.subject, space=space)
        )
        for sc in scenarios
    }


def evaluate(memory: GraphMemory, space: str, scenarios: list[Scenario]) -> dict[str, Any]:
    per: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    latencies = []
    for sc in scenarios:
        for q in sc.questions:
            started = time.perf_counter()
            result = memory.facts.ask(q.text, space=space, k=3)
            latencies.append((time.perf_counter() - started) * 1000)
            right = result.answer is not None and name_key(result.answer.object) == name_key(q.gold)
            per[q.kind]["AA"].append(float(right))
            per[q.kind]["SEH@3"].append(
                float(any(h.unit.id in q.gold_units for h in result.hits[:3]))
            )
    ids = [i for sc in scenarios for i in sc.must_outdate + sc.must_stay + sc.contested]
    status = {u.id: u.status.value for u in memory.facts.reader.units_by_ids(space, ids).values()}
    for sc in scenarios:
        for i in sc.must_outdate:
            per[sc.kind]["outdated"].append(float(status.get(i) == "outdated"))
        for i in sc.must_stay:
            per[sc.kind]["kept"].append(float(status.get(i) == "active"))
        for i in sc.contested:
            per[sc.kind]["CRS"].append(float(status.get(i) == "pending"))
    summary = {
        kind: {metric: (statistics.fmean(v), len(v)) for metric, v in metrics.items()}
        for kind, metrics in per.items()
    }
    summary["_ask_ms"] = {"p50": statistics.median(latencies), "p95": _p95(latencies)}
    return summary


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--per-kind", type=int, default=200, help="scenarios per conflict type")
    parser.add_argument("--replicas", type=int, default=3, help="permuted orders for UOCS")
    parser.add_argument("--embedder", choices=("minilm", "hash"), default="minilm")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    add_json_out(parser)
    args = parser.parse_args()
    figures = Figures("facts_conflicts")
    # a terminated run still stops its embedded server (the `finally` below)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    scenarios = Generator(args.seed).scenarios(args.per_kind)
    embedder = CachedEmbedder(
        SentenceTransformerEmbedder() if args.embedder == "minilm" else HashEmbedder()
    )
    questions = sum(len(sc.questions) for sc in scenarios)
    facts = sum(len(sc.facts) for sc in scenarios)
    print(
        f"{len(scenarios)} scenarios ({args.per_kind} per type), {facts} facts, {questions} "
        f"questions; embedder {embedder.name}; {args.replicas} permuted replicas for UOCS"
    )
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as home:
        server = EmbeddedServer(Path(home), free_port())
        server.ensure_running()
        try:
            settings = Settings(
                home=Path(home), embedded_port=server.port, database="facts_conflicts"
            )
            with GraphMemory(settings, embedder=embedder) as memory:
                memory.init()
                for policy in POLICIES:
                    space = f"conflicts-{policy.value}"
                    order = stream(scenarios, random.Random(args.seed))
                    seconds = ingest(memory, policy, order, space)
                    summary = evaluate(memory, space, scenarios)
                    base_view = views(memory, space, scenarios)
                    same = {sc.id: True for sc in scenarios}
                    for r in range(args.replicas):
                        replica = f"{space}-perm{r}"
                        rng = random.Random(args.seed * 1000 + r)
                        ingest(memory, policy, stream(scenarios, rng, permute=True), replica)
                        for sid, view in views(memory, replica, scenarios).items():
                            same[sid] = same[sid] and view == base_view[sid]
                    for kind in KINDS:
                        flags = [same[sc.id] for sc in scenarios if sc.kind == kind]
                        summary[kind]["UOCS"] = (statistics.fmean(flags), len(flags))
                    summary["_ingest_s"] = seconds
                    results[policy.value] = summary
                    ask = summary["_ask_ms"]
                    print(
                        f"  {policy.value}: ingested {facts} facts in {seconds:.1f} s; "
                        f"ask p50 {ask['p50']:.1f} ms, p95 {ask['p95']:.1f} ms",
                        flush=True,
                    )
        finally:
            server.stop()
    print_table(results)
    if args.json:
        print(json.dumps(results, indent=1, default=str))
    for policy in POLICIES:
        summary = results[policy.value]
        for kind in KINDS:
            if "AA" in summary.get(kind, {}):
                figures.add(f"{policy.value}: {kind} answer accuracy", summary[kind]["AA"][0])
        figures.add(f"{policy.value}: ask p95", summary["_ask_ms"]["p95"], "ms")
    figures.write(args.json_out)


def print_table(results: dict[str, Any]) -> None:
    names = [p.value for p in POLICIES]
    print()
    print(f"{'type':<12} {'metric':<9} " + " ".join(f"{n:>15}" for n in names) + "   n")
    for kind in KINDS:
        metrics = ["AA", "SEH@3", "UOCS", "CRS", "outdated", "kept"]
        for metric in metrics:
            row = [results[n].get(kind, {}).get(metric) for n in names]
            if all(r is None for r in row):
                continue
            cells = " ".join(f"{r[0]:>15.3f}" if r else f"{'-':>15}" for r in row)
            count = next(r[1] for r in row if r)
            print(f"{kind:<12} {metric:<9} {cells}   {count}")
    macro = [statistics.fmean(results[n][k]["AA"][0] for k in KINDS) for n in names]
    print(f"{'all':<12} {'macro-AA':<9} " + " ".join(f"{m:>15.3f}" for m in macro))


if __name__ == "__main__":
    main()
