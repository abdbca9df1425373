"""Wall time of `graphmem` commands as a user runs them, warm and cold, in one run:

    python benchmarks/cli_latency.py [--runs 10]

A private GRAPHMEM_HOME gets the demo space (examples/conversation.jsonl and facts.jsonl,
default embedder). Then each command runs --runs times as a new process through the installed
`graphmem` entry point:

- warm: the embedded engine already runs (started by the previous call);
- cold: `graphmem server stop` just before each call, so the call starts the engine itself
  (the server's AOF was compacted by the stop; nothing else is dropped: the OS page cache
  stays warm, as it would for a user who stopped the server);
- baseline in the same run: the same search with GRAPHMEM_EMBEDDER=sentence-transformers (the
  runtime graphmem used before), and a bare `python -c pass`;
- with --neo4j, instead: a local Neo4j (`graphmem neo4j start` on free ports, the demo space
  ingested into it), restarted before each run; the first search after a start that plans
  the queries (the default), after `start --no-warm`, and warm searches;
- transport: the same server restarted with a TCP port on 127.0.0.1 as well
  (GRAPHMEM_EMBEDDED_PORT), then the warm commands alternately over its Unix socket (what
  graphmem uses) and over TCP (GRAPHMEM_URI=falkordb://127.0.0.1:PORT, the way graphmem
  reached it before the socket), so both see the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from figures import Figures, add_json_out

REPO = Path(__file__).resolve().parents[1]
GRAPHMEM = str(Path(sys.executable).parent / "graphmem")
QUESTION = "What did Maya adopt, and when?"
COMMANDS: dict[str, list[str]] = {
    "search": ["search", QUESTION, "--space", "demo", "-k", "5"],
    "facts current": ["facts", "current", "--subject", "Alice", "--space", "demo"],
    "--help": ["--help"],
    "stats": ["stats", "--space", "demo"],
}


def timed(args: Sequence[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, env=env, check=True, capture_output=True, cwd=REPO)
    return time.perf_counter() - started


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def transport(env: dict[str, str], home: str, runs: int) -> None:
    """Warm search and facts current over the Unix socket and over TCP, interleaved."""
    port = free_port()
    timed([GRAPHMEM, "server", "stop"], env)
    with_port = {**env, "GRAPHMEM_EMBEDDED_PORT": str(port)}
    timed([GRAPHMEM, "server", "start"], with_port)
    password = (Path(home) / "falkordb.password").read_text().strip()
    tcp = {**env, "GRAPHMEM_URI": f"falkordb://127.0.0.1:{port}", "GRAPHMEM_PASSWORD": password}
    for name in ("search", "facts current"):
        over: dict[str, list[float]] = {"unix socket": [], "tcp": []}
        for _ in range(runs):
            for label, variables in (("unix socket", with_port), ("tcp", tcp)):
                over[label].append(timed([GRAPHMEM, *COMMANDS[name]], variables))
        for label, times in over.items():
            print(f"warm  graphmem {name:<14} over {label:<11} {summary(times)}", flush=True)
    timed([GRAPHMEM, "server", "stop"], with_port)


def neo4j_first(env: dict[str, str], runs: int) -> None:
    """First `graphmem search` after `graphmem neo4j start`, with and without the warm-up."""
    ports = ["--port", str(free_port()), "--http-port", "0"]
    started = subprocess.run(
        [GRAPHMEM, "neo4j", "start", *ports, "--json"], env=env, check=True, capture_output=True
    )
    status = json.loads(started.stdout)
    password = Path(status["password_file"]).read_text(encoding="utf-8").strip()
    neo = {**env, "GRAPHMEM_URI": status["uri"], "GRAPHMEM_PASSWORD": password}
    try:
        ingest = ["ingest", "examples/conversation.jsonl", "--space", "demo"]
        took = timed([GRAPHMEM, *ingest], neo)
        print(f"setup: graphmem {' '.join(ingest)} (Neo4j): {took:.2f} s")
        first: dict[str, list[float]] = {"start": [], "start --no-warm": []}
        for _ in range(runs):
            for label in first:
                timed([GRAPHMEM, "neo4j", "stop", *ports[:2]], env)
                timed([GRAPHMEM, "neo4j", *label.split(), *ports], env)
                first[label].append(timed([GRAPHMEM, *COMMANDS["search"]], neo))
        for label, times in first.items():
            print(f"first graphmem search after neo4j {label:<15} {summary(times)}", flush=True)
        warm = [timed([GRAPHMEM, *COMMANDS["search"]], neo) for _ in range(runs)]
        print(f"warm  graphmem search on Neo4j {'':<19} {summary(warm)}", flush=True)
    finally:
        timed([GRAPHMEM, "neo4j", "stop", *ports[:2]], env)


def summary(times: Sequence[float]) -> str:
    return (
        f"median {statistics.median(times):6.3f} s   min {min(times):6.3f}   "
        f"max {max(times):6.3f}   ({len(times)} runs)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--baseline-runs", type=int, default=3)
    add_json_out(parser)
    parser.add_argument("--neo4j", action="store_true", help="the local Neo4j's first search")
    parser.add_argument("--neo4j-line", default="5.26", help="with --neo4j: 5.26 or 2026")
    args = parser.parse_args(argv)
    figures = Figures("cli_latency")

    with tempfile.TemporaryDirectory(prefix="gm-cli-") as home:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
        env["GRAPHMEM_HOME"] = home
        env["GRAPHMEM_NEO4J_LINE"] = args.neo4j_line  # `graphmem neo4j --line`
        print(
            f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start; "
            f"PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r}"
        )
        if args.neo4j:
            neo4j_first(env, args.runs)
            return 0
        setup = [
            ["ingest", "examples/conversation.jsonl", "--space", "demo"],
            ["facts", "add", "examples/facts.jsonl", "--space", "demo"],
        ]
        for command in setup:
            print(f"setup: graphmem {' '.join(command)}: {timed([GRAPHMEM, *command], env):.2f} s")
        try:
            bare = [timed([sys.executable, "-c", "pass"], env) for _ in range(args.runs)]
            print(f"      python -c pass          {summary(bare)}")
            figures.add("python -c pass, median", statistics.median(bare), "s")
            for name, command in COMMANDS.items():
                timed([GRAPHMEM, *command], env)  # the engine runs: the next calls are warm
                warm = [timed([GRAPHMEM, *command], env) for _ in range(args.runs)]
                print(f"warm  graphmem {name:<14} {summary(warm)}", flush=True)
                figures.add(f"warm graphmem {name}, median", statistics.median(warm), "s")
            for name in ("search", "facts current"):
                cold = []
                for _ in range(args.runs):
                    timed([GRAPHMEM, "server", "stop"], env)
                    cold.append(timed([GRAPHMEM, *COMMANDS[name]], env))
                print(f"cold  graphmem {name:<14} {summary(cold)}", flush=True)
                figures.add(f"cold graphmem {name}, median", statistics.median(cold), "s")
            before = {**env, "GRAPHMEM_EMBEDDER": "sentence-transformers"}
            timed([GRAPHMEM, "server", "start"], env)
            baseline = [
                timed([GRAPHMEM, *COMMANDS["search"]], before) for _ in range(args.baseline_runs)
            ]
            print(f"warm  graphmem search, sentence-transformers runtime: {summary(baseline)}")
            figures.add(
                "warm graphmem search, sentence-transformers runtime, median",
                statistics.median(baseline),
                "s",
            )
            transport(env, home, args.runs)
        finally:
            subprocess.run([GRAPHMEM, "server", "stop"], env=env, capture_output=True)
        print(f"load average {os.getloadavg()[0]:.1f} at the end")
    figures.write(args.json_out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
