"""`graphmem serve` under load on loopback: N concurrent MCP clients over streamable HTTP, each
with its own API key and space, cycling through ingest (add_turns), search (recall of the
conversation layer), recall (every layer) and facts (add_facts) for a fixed time.

Prints per engine and N: calls, calls/s, p50/p95/p99 latency (ms) and errors. The server runs
as its own process (`graphmem serve`); the clients run here. Bounded: each N runs for
--seconds (plus at most one call per client in flight) and stops after --max-calls per client.

    .venv/bin/python benchmarks/serve_load.py --seconds 20 --clients 1 8 32
    .venv/bin/python benchmarks/serve_load.py --engines falkordb --seconds 5 --clients 1 8
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import httpx2  # noqa: E402
from figures import Figures, add_json_out  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from graphmem_neo4j.keys import KeyRing  # noqa: E402
from graphmem_neo4j.memory import GraphMemory  # noqa: E402
from graphmem_neo4j.settings import Settings  # noqa: E402
from graphmem_neo4j.store.embedded import EmbeddedServer  # noqa: E402
from graphmem_neo4j.store.local_neo4j import LocalNeo4j  # noqa: E402

TOPICS = ("hiking", "cooking", "chess", "gardening", "jazz", "sailing", "painting", "running")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pct(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def operation(client: int, step: int) -> tuple[str, str, dict[str, Any]]:
    """The step-th call of a client: ingest, search, recall, facts in turn (clients start at
    different points of the cycle, so every N sees the same mix)."""
    topic = TOPICS[(client + step) % len(TOPICS)]
    kind = ("ingest", "search", "recall", "facts")[(client + step) % 4]
    if kind == "ingest":
        turns = [
            {"speaker": "user", "text": f"Turn {step}: this weekend I went {topic} again."},
            {"speaker": "assistant", "text": f"Noted that you enjoy {topic} (turn {step})."},
        ]
        return kind, "add_turns", {"turns": turns, "session": f"s{step // 40}"}
    if kind == "search":
        return kind, "recall", {"query": f"what about {topic}?", "layers": ["conversation"]}
    if kind == "recall":
        return kind, "recall", {"query": f"plan a weekend of {topic}", "budget_tokens": 800}
    fact = {
        "subject": "user",
        "relation": f"likes_{topic}",
        "object": f"level {step}",
        "category": "hobbies",
    }
    return kind, "add_facts", {"facts": [fact]}


async def client_loop(
    url: str, key: str, client: int, deadline: float, max_calls: int
) -> list[tuple[str, float, bool]]:
    done: list[tuple[str, float, bool]] = []
    auth = {"Authorization": f"Bearer {key}"}
    async with (
        httpx2.AsyncClient(headers=auth, timeout=120) as http,
        streamable_http_client(url, http_client=http) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        started = time.perf_counter()
        await session.initialize()
        done.append(("init", (time.perf_counter() - started) * 1000, True))
        step = 0
        while time.monotonic() < deadline and step < max_calls:
            kind, tool, args = operation(client, step)
            start = time.perf_counter()
            try:
                result = await session.call_tool(tool, args)
                ok = not result.is_error
            except Exception:  # an error is a measured outcome
                ok = False
            done.append((kind, (time.perf_counter() - start) * 1000, ok))
            step += 1
    return done


async def run_n(url: str, keys: list[str], seconds: float, max_calls: int) -> dict[str, Any]:
    start = time.monotonic()
    deadline = start + seconds
    per_client = await asyncio.gather(
        *(client_loop(url, key, i, deadline, max_calls) for i, key in enumerate(keys)),
        return_exceptions=True,
    )
    elapsed = time.monotonic() - start
    every = [c for r in per_client if isinstance(r, list) for c in r]
    calls = [c for c in every if c[0] != "init"]
    inits = [ms for kind, ms, _ in every if kind == "init"]
    failed_clients = sum(1 for r in per_client if isinstance(r, BaseException))
    latencies = [ms for _, ms, ok in calls if ok]
    return {
        "clients": len(keys),
        "seconds": round(elapsed, 2),
        "calls": len(calls),
        "calls_per_s": round(len(calls) / elapsed, 2),
        "p50_ms": round(pct(latencies, 0.50), 1),
        "p95_ms": round(pct(latencies, 0.95), 1),
        "p99_ms": round(pct(latencies, 0.99), 1),
        "errors": sum(1 for *_, ok in calls if not ok) + failed_clients,
        "session_init_p50_ms": round(pct(inits, 0.5), 1),
        "by_kind_p50_ms": {
            kind: round(pct([ms for k, ms, ok in calls if k == kind and ok], 0.5), 1)
            for kind in ("ingest", "search", "recall", "facts")
        },
    }


def serve_process(env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    graphmem = Path(sys.executable).with_name("graphmem")
    proc = subprocess.Popen(
        [str(graphmem), "serve", "--port", str(port)],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("graphmem serve exited")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            time.sleep(0.2)
    proc.terminate()
    raise RuntimeError("graphmem serve did not start")


def run_engine(
    name: str, settings: Settings, env: dict[str, str], args: argparse.Namespace
) -> list[dict[str, Any]]:
    with GraphMemory(settings) as memory:
        memory.ensure_schema()
        ring = KeyRing(memory.store)
        keys = {n: [ring.create([f"load-{n}-{i}"])[0] for i in range(n)] for n in args.clients}
        warm_key = ring.create(["load-warmup"])[0]
        for n in args.clients:  # a space's first write sets it up: not what is measured
            for i in range(n):
                memory.ensure_space(f"load-{n}-{i}")
    port = free_port()
    proc = serve_process(env, port)
    url = f"http://127.0.0.1:{port}/mcp"
    rows = []
    try:
        # untimed: loads the embedding model and creates the indexes' first entries
        asyncio.run(client_loop(url, warm_key, 0, time.monotonic() + 60, 4))
        for n in args.clients:
            row = {"engine": name, **asyncio.run(run_n(url, keys[n], args.seconds, args.max_calls))}
            row["load"] = os.getloadavg()[0]
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--engines", nargs="+", default=["falkordb", "neo4j"])
    parser.add_argument("--clients", nargs="+", type=int, default=[1, 8, 32])
    parser.add_argument("--seconds", type=float, default=20.0, help="per N")
    parser.add_argument("--max-calls", type=int, default=2000, help="per client and N")
    parser.add_argument(
        "--embedder", default="auto", help="GRAPHMEM_EMBEDDER of the server (auto = MiniLM)"
    )
    add_json_out(parser)
    args = parser.parse_args(argv)
    figures = Figures("serve_load")
    print(f"load average before: {os.getloadavg()}", file=sys.stderr)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="graphmem-serve-load-") as tmp:
        home = Path(tmp)
        base = {"GRAPHMEM_EMBEDDER": args.embedder}
        if "falkordb" in args.engines:
            falkor = EmbeddedServer(home / "falkordb-home", free_port())
            falkor.ensure_running()
            try:
                env = {**base, "GRAPHMEM_HOME": str(falkor.home), "GRAPHMEM_DATABASE": "load"}
                settings = Settings(home=falkor.home, database="load", embedder=args.embedder)
                rows += run_engine("falkordb", settings, env, args)
            finally:
                falkor.stop()
        if "neo4j" in args.engines:
            neo4j = LocalNeo4j(home / "neo4j", free_port())
            neo4j.start()
            try:
                password = neo4j.password()
                env = {**base, "GRAPHMEM_URI": neo4j.uri, "GRAPHMEM_PASSWORD": password}
                settings = Settings(uri=neo4j.uri, password=password, embedder=args.embedder)
                rows += run_engine("neo4j", settings, env, args)
            finally:
                neo4j.stop()
    print("\n| engine | N | calls | calls/s | p50 ms | p95 ms | p99 ms | errors | load |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['engine']} | {r['clients']} | {r['calls']} | {r['calls_per_s']} | "
            f"{r['p50_ms']} | {r['p95_ms']} | {r['p99_ms']} | {r['errors']} | {r['load']:.1f} |"
        )
        prefix = f"{r['engine']}, N={r['clients']}"
        figures.add(f"{prefix}: calls/s", r["calls_per_s"], "calls/s")
        figures.add(f"{prefix}: p95", r["p95_ms"], "ms")
        figures.add(f"{prefix}: errors", r["errors"])
    figures.write(args.json_out)


if __name__ == "__main__":
    main()
