"""Throughput of the batch ingestion recipe (examples/batch_ingest.py) on the embedded engine.

    python benchmarks/batch_ingest.py [--data ../shared/data/locomo_dev/turns.jsonl]
                                      [--workers 1 2] [--repeat 2]
                                      [--embedder sentence-transformers|hash]

The LoCoMo dev turns become one JSONL file per conversation session (the recipe's input: a
directory of files). Each configuration ingests them into a fresh graph of one embedded
FalkorDB started for the run:

- in-process: one GraphMemory in this process calling the same service method file by file,
  model already loaded: the baseline, no worker processes, no start-up in the timing;
- recipe, N workers: `run()` of the recipe, as `python examples/batch_ingest.py DIR` runs it,
  timed from the first file handed out to the last one recorded, so worker start-up (imports,
  model load) is included;
- resume: the same recipe again with the done list of the N-worker run: everything skipped.

Printed: files, turns, and per configuration the best of --repeat runs (the order of the
configurations rotates between rounds, so none always meets the same load), in seconds and
turns/s, with each recipe configuration's speed-up over the in-process baseline of the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from graphmem_neo4j.embedder import make_embedder
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store.embedded import EmbeddedServer

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data" / "locomo_dev" / "turns.jsonl"
sys.path.insert(0, str(REPO / "examples"))

import batch_ingest  # noqa: E402  (examples/ is not a package)
from figures import Figures, add_json_out  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def locomo_time(text: str) -> str | None:
    try:
        moment = datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")
    except ValueError:
        return None
    return moment.strftime("%Y-%m-%dT%H:%M:00Z")


def write_session_files(data: Path, folder: Path) -> tuple[int, int]:
    """LoCoMo's turns.jsonl → one file per (conversation, session); returns (files, turns)."""
    sessions: dict[str, list[dict[str, Any]]] = {}
    for line in data.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        session = f"{row['sample_id']}-s{int(row['session']):02d}"
        sessions.setdefault(session, []).append(
            {
                "session": session,
                "turn_id": f"{row['sample_id']}-{row['dia_id']}",
                "speaker": row["speaker"],
                "text": row["text"],
                "timestamp": locomo_time(row["session_date_time"]),
            }
        )
    folder.mkdir(parents=True)
    for session, turns in sessions.items():
        body = "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in turns)
        (folder / f"{session}.jsonl").write_text(body, encoding="utf-8")
    return len(sessions), sum(len(t) for t in sessions.values())


def use_graph(base: dict[str, str], name: str) -> Settings:
    """Point this process and the workers it spawns at a fresh graph."""
    os.environ.update({**base, "GRAPHMEM_DATABASE": name})
    return Settings()


def in_process(settings: Settings, jobs: list[Any]) -> float:
    with GraphMemory(settings) as memory:
        memory.ensure_schema()
        memory.embedder.embed(["warm up"])  # the model loads outside the timing
        started = time.perf_counter()
        for job in jobs:
            batch_ingest.ingest_with(memory, job)
        return time.perf_counter() - started


def recipe(
    settings: Settings, jobs: list[Any], workers: int, done: Path
) -> tuple[float, float, int]:
    """(wall seconds, seconds the busiest worker spent ingesting, turns)."""
    with GraphMemory(settings) as memory:
        memory.ensure_schema()  # what the recipe's prepare() does before any worker starts
    started = time.perf_counter()
    outcomes = batch_ingest.run(
        jobs, workers=workers, done=batch_ingest.DoneList(done), on_outcome=lambda j, o: None
    )
    seconds = time.perf_counter() - started
    bad = [o for o in outcomes if o.status != "done"]
    if bad:
        raise SystemExit(f"ingestion failed: {bad[:3]}")
    busy: dict[int, float] = {}
    for outcome in outcomes:
        busy[outcome.worker] = busy.get(outcome.worker, 0.0) + outcome.seconds
    return seconds, max(busy.values()), sum(o.items for o in outcomes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--embedder", choices=("sentence-transformers", "hash"), default=None)
    parser.add_argument("--repeat", type=int, default=2, help="runs per configuration (best)")
    add_json_out(parser)
    args = parser.parse_args()
    figures = Figures("batch_ingest")
    if not args.data.is_file():
        raise SystemExit(f"no data at {args.data}: pass --data PATH/turns.jsonl")

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "sessions"
        files, turns = write_session_files(args.data, folder)
        server = EmbeddedServer(root / "home", free_port())
        server.ensure_running()
        base = {
            "GRAPHMEM_HOME": str(server.home),
            "GRAPHMEM_EMBEDDED_PORT": str(server.port),
        }
        if args.embedder:
            base["GRAPHMEM_EMBEDDER"] = args.embedder
        try:
            embedder = make_embedder(use_graph(base, "probe")).name
            print(
                f"{files} files, {turns} turns (LoCoMo dev sessions), embedder {embedder}, "
                f"{os.cpu_count()} CPU cores, load average {os.getloadavg()[0]:.1f}"
            )
            configs: list[int] = [0, *args.workers]  # 0: in-process
            best: dict[int, tuple[float, float]] = {}
            resumed: dict[int, tuple[float, int]] = {}
            for round_ in range(args.repeat):
                # rotate the order so no configuration always runs in the same load window
                shift = round_ % len(configs)
                for workers in configs[shift:] + configs[:shift]:
                    settings = use_graph(base, f"bench_{workers}_{round_}")
                    if workers == 0:
                        seconds = in_process(settings, jobs(folder, root))
                        busy = seconds
                    else:
                        done = root / f"done-{workers}-{round_}.jsonl"
                        seconds, busy, items = recipe(settings, jobs(folder, root), workers, done)
                        assert items == turns, (items, turns)
                        resumed.setdefault(workers, resume(folder, done))
                    old = best.get(workers, (float("inf"), float("inf")))
                    best[workers] = (min(old[0], seconds), min(old[1], busy))
            baseline = best[0][0]
            print(
                f"best of {args.repeat} run(s) each\n"
                f"{'in-process, sequential (baseline)':40} {baseline:7.1f} s "
                f"{turns / baseline:7.1f} turns/s"
            )
            figures.add("in-process, sequential", turns / baseline, "turns/s")
            for workers in args.workers:
                seconds, busy = best[workers]
                print(
                    f"{f'recipe, {workers} worker(s), wall':40} {seconds:7.1f} s "
                    f"{turns / seconds:7.1f} turns/s  ({baseline / seconds:.2f}x baseline)"
                )
                figures.add(f"recipe, {workers} worker(s), wall", turns / seconds, "turns/s")
                print(
                    f"{'  without start-up (busiest worker)':40} {busy:7.1f} s "
                    f"{turns / busy:7.1f} turns/s  ({baseline / busy:.2f}x baseline)"
                )
                skipped, todo = resumed[workers]
                print(
                    f"{'  resume with its done list':40} {skipped:7.2f} s  {todo} files left to do"
                )
            print(f"load average at the end: {os.getloadavg()[0]:.1f}")
        finally:
            server.stop()
    figures.write(args.json_out)


def jobs(folder: Path, root: Path, done: Path | None = None) -> list[Any]:
    """Every file of `folder` into space `bench`, minus those in `done` (default: none)."""
    done_list = batch_ingest.DoneList(done or root / f"{uuid.uuid4().hex}.done")
    todo, _ = batch_ingest.plan(
        folder,
        batch_ingest.discover(folder),
        layer="conversation",
        kind="expert",
        space="bench",
        done=done_list,
    )
    return list(todo)


def resume(folder: Path, done: Path) -> tuple[float, int]:
    """The re-run after a finished run: plan against the done list, nothing left to ingest."""
    started = time.perf_counter()
    todo = jobs(folder, folder, done)
    batch_ingest.run(
        todo, workers=2, done=batch_ingest.DoneList(done), on_outcome=lambda j, o: None
    )
    return time.perf_counter() - started, len(todo)


if __name__ == "__main__":
    main()
