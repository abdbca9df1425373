"""Batch ingestion recipe: every JSONL file of a directory into graphmem, in parallel worker
processes, with progress and resumption, through the Python API.

    python examples/batch_ingest.py examples/batch/conversations --space batch-demo --workers 2
    python examples/batch_ingest.py examples/batch/facts --layer facts --space-per-file
    python examples/batch_ingest.py DIR --layer experience --kind exploration --space kitchen

Each file goes through its layer's service (`memory.conversation.ingest_file`,
`memory.facts.add_file`, `memory.experience.add_file`) in a worker process that keeps one
GraphMemory (one embedding model) for all the files it gets. The same GRAPHMEM_* settings as
the CLI apply, so the same command fills the embedded engine or a Neo4j.

Parallel where it is safe: conversation files (disjoint sessions) share a space; facts and
experience files are order-sensitive (a later fact supersedes an earlier one, a task's
insights are rebuilt from all its runs), so in a shared space they go one at a time in name
order, and in parallel only with --space-per-file (each file its own space, named after it).

Resumption: a file is appended to the done list once all its writes returned; a re-run skips
every file listed with the same content hash, space and layer, and ingests the rest, including
a file interrupted half-way (the services' writes are idempotent, so it is stored once). A
file with bad input is reported (file, line, field), nothing from it is stored, it stays off
the done list, and the other files carry on; the exit code is then 6.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from graphmem_neo4j.memory import GraphMemory

Layer = Literal["conversation", "facts", "experience"]
LAYERS: tuple[Layer, ...] = ("conversation", "facts", "experience")
PARALLEL_IN_ONE_SPACE: frozenset[Layer] = frozenset({"conversation"})
EXIT_INPUT = 6
EXIT_FAILED = 1


# --- planning (pure) ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Job:
    path: str
    name: str
    """The file's path relative to the input directory: its key in the done list."""
    sha256: str
    space: str
    layer: Layer
    kind: str
    items: int
    """Non-blank lines: the progress total."""


@dataclass(frozen=True)
class Outcome:
    name: str
    status: Literal["done", "rejected", "failed"]
    items: int
    written: int
    seconds: float
    error: str | None = None
    worker: int = 0
    """The worker's process id."""


def discover(directory: Path, pattern: str = "*.jsonl") -> list[Path]:
    """The input files under `directory` (recursively), in name order."""
    if not directory.is_dir():
        raise SystemExit(f"error: {directory} is not a directory")
    return sorted(p for p in directory.rglob(pattern) if p.is_file())


def digest(path: Path) -> tuple[str, int]:
    """(sha256 of the content, non-blank lines)."""
    sha = hashlib.sha256()
    lines = 0
    with path.open("rb") as handle:
        for raw in handle:
            sha.update(raw)
            if raw.strip():
                lines += 1
    return sha.hexdigest(), lines


_NOT_SPACE = re.compile(r"[^A-Za-z0-9_.\-]+")


def space_for_file(name: str) -> str:
    """A valid space name from a file name: 'team a/2024-05.jsonl' → 'team-a-2024-05'."""
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else name
    cleaned = _NOT_SPACE.sub("-", stem.replace("/", "-")).strip("-._")
    return (cleaned or "batch")[:64]


def done_key(job: Job) -> tuple[str, str, str, str]:
    return (job.name, job.sha256, job.space, job.layer)


class DoneList:
    """Files already ingested, one JSON object a line; appended (and fsynced) per file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.keys: set[tuple[str, str, str, str]] = set()
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                    self.keys.add((row["file"], row["sha256"], row["space"], row["layer"]))
                except (json.JSONDecodeError, KeyError, TypeError):
                    continue  # a line torn by a crash: that file is simply done again

    def __contains__(self, job: Job) -> bool:
        return done_key(job) in self.keys

    def record(self, job: Job, outcome: Outcome) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        row = {
            "file": job.name,
            "sha256": job.sha256,
            "space": job.space,
            "layer": job.layer,
            "items": outcome.items,
            "written": outcome.written,
            "at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(row) + "\n")
            out.flush()
            os.fsync(out.fileno())
        self.keys.add(done_key(job))


def plan(
    directory: Path,
    files: Sequence[Path],
    *,
    layer: Layer,
    kind: str,
    space: str | None,
    done: DoneList,
) -> tuple[list[Job], list[Job]]:
    """(jobs to run, jobs already done). Without `space`, each file gets its own space."""
    todo: list[Job] = []
    skipped: list[Job] = []
    for path in files:
        name = path.relative_to(directory).as_posix()
        sha, items = digest(path)
        target = space if space is not None else space_for_file(name)
        job = Job(str(path), name, sha, target, layer, kind, items)
        (skipped if job in done else todo).append(job)
    return todo, skipped


def effective_workers(requested: int, layer: Layer, shared_space: bool) -> int:
    """Order-sensitive layers are serial within one space."""
    if shared_space and layer not in PARALLEL_IN_ONE_SPACE:
        return 1
    return max(1, requested)


def default_done_path(home: Path, directory: Path, space: str | None, layer: Layer) -> Path:
    """Under the graphmem home, so following the recipe never writes into the input folder."""
    key = hashlib.sha256(str(directory.resolve()).encode()).hexdigest()[:12]
    return home / "batch" / f"{layer}-{space or 'per-file'}-{key}.done.jsonl"


# --- the workers -------------------------------------------------------------------------------
_MEMORY: GraphMemory | None = None


def start_worker(threads: int) -> None:
    """Process initializer: one GraphMemory per worker, from the GRAPHMEM_* environment."""
    global _MEMORY
    from graphmem_neo4j.memory import GraphMemory
    from graphmem_neo4j.settings import Settings

    settings = Settings()
    if settings.embedder == "sentence-transformers":
        import torch

        torch.set_num_threads(threads)  # N workers x all cores would oversubscribe the CPU
    _MEMORY = GraphMemory(settings)
    _MEMORY.embedder.embed(["warm up"])  # load the model now, not inside the first file


def ingest_with(memory: GraphMemory, job: Job) -> tuple[int, int]:
    """(items read, items written) of one file through its layer's Python API."""
    path = Path(job.path)
    if job.layer == "conversation":
        # Forgetting is left to one run after the batch (`graphmem forget`): workers pruning
        # while others write would race.
        reports = memory.conversation.ingest_file(path, space=job.space, forget_every=0)
        return sum(r.turns_read for r in reports), sum(r.turns_written for r in reports)
    if job.layer == "facts":
        report = memory.facts.add_file(path, space=job.space)
        written = sum(1 for o in report.outcomes if o.action != "unchanged")
        return len(report.outcomes), written
    kind: Literal["expert", "exploration"] = (
        "exploration" if job.kind == "exploration" else "expert"
    )
    added = memory.experience.add_file(path, kind=kind, space=job.space)
    return added.trajectories, added.added + added.replaced


def run_job(job: Job) -> Outcome:
    from graphmem_neo4j.errors import GraphMemError, InputError

    assert _MEMORY is not None, "start_worker did not run"
    started = time.perf_counter()
    try:
        items, written = ingest_with(_MEMORY, job)
        # The LLM tokens a file cost go to the graph now: a pool worker is never closed, so
        # GraphMemory's flush on close would not run (found by tests/llm/test_readme_guide.py).
        _MEMORY.flush_usage()
    except InputError as e:
        seconds = time.perf_counter() - started
        return Outcome(job.name, "rejected", job.items, 0, seconds, str(e), os.getpid())
    except GraphMemError as e:
        seconds = time.perf_counter() - started
        return Outcome(job.name, "failed", job.items, 0, seconds, str(e), os.getpid())
    seconds = time.perf_counter() - started
    return Outcome(job.name, "done", items, written, seconds, worker=os.getpid())


# --- driving -----------------------------------------------------------------------------------
@contextmanager
def progress_bar(total_items: int, enabled: bool) -> Iterator[Callable[[Job, Outcome], None]]:
    """A bar over items on a terminal; otherwise one line per file on stderr."""
    if not enabled:
        yield lambda job, outcome: None
        return
    if not sys.stderr.isatty():
        count = {"files": 0}

        def line(job: Job, outcome: Outcome) -> None:
            count["files"] += 1
            what = f"{outcome.written}/{outcome.items} written" if outcome.status == "done" else ""
            extra = f": {outcome.error}" if outcome.error else ""
            print(
                f"[{count['files']}] {job.name} -> {job.space}: {outcome.status} {what} "
                f"in {outcome.seconds:.1f}s{extra}",
                file=sys.stderr,
            )

        yield line
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
    ) as bar:
        task = bar.add_task("ingesting", total=total_items)

        def advance(job: Job, outcome: Outcome) -> None:
            bar.advance(task, job.items)
            if outcome.status != "done":
                bar.console.print(f"{job.name}: {outcome.status}: {outcome.error}")

        yield advance


def run(
    jobs: Sequence[Job],
    *,
    workers: int,
    done: DoneList,
    on_outcome: Callable[[Job, Outcome], None],
) -> list[Outcome]:
    """Run the jobs in `workers` processes; record each finished file as it completes."""
    if not jobs:
        return []
    cores = os.cpu_count() or 1
    threads = max(1, cores // workers)
    outcomes: list[Outcome] = []
    # spawn, not fork: the parent may already hold a model, threads and sockets.
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=get_context("spawn"),
        initializer=start_worker,
        initargs=(threads,),
    ) as pool:
        pending: dict[Future[Outcome], Job] = {}
        queue = list(jobs)
        try:
            # Keep at most `workers` files in flight so the order of a serial run is kept and
            # an interrupt leaves little half-done work.
            while queue or pending:
                while queue and len(pending) < workers:
                    job = queue.pop(0)
                    pending[pool.submit(run_job, job)] = job
                finished = first_finished(pending)
                job = pending.pop(finished)
                outcome = finished.result()
                if outcome.status == "done":
                    done.record(job, outcome)
                outcomes.append(outcome)
                on_outcome(job, outcome)
        except KeyboardInterrupt:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return outcomes


def first_finished(pending: dict[Future[Outcome], Job]) -> Future[Outcome]:
    from concurrent.futures import FIRST_COMPLETED, wait

    finished, _ = wait(pending, return_when=FIRST_COMPLETED)
    return min(finished, key=lambda f: pending[f].name)


def prepare(space: str | None) -> Path:
    """Start the engine and apply the schema once, before workers race for it; returns the
    graphmem home (where the done list lives by default)."""
    from graphmem_neo4j.memory import GraphMemory
    from graphmem_neo4j.settings import Settings
    from graphmem_neo4j.spaces import validate_space

    if space is not None:
        validate_space(space, source="--space")
    settings = Settings()
    with GraphMemory(settings) as memory:
        memory.ensure_schema()
    return settings.home


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Ingest every JSONL file of a directory into graphmem, in parallel, "
        "resumably (settings: the GRAPHMEM_* environment, as for the CLI)."
    )
    parser.add_argument(
        "directory", type=Path, help="folder of .jsonl files (searched recursively)"
    )
    parser.add_argument("--layer", choices=LAYERS, default="conversation")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--space", help="one space for every file [default: GRAPHMEM_SPACE]")
    where.add_argument(
        "--space-per-file", action="store_true", help="each file into its own space, named after it"
    )
    parser.add_argument(
        "--kind",
        choices=("expert", "exploration"),
        default="expert",
        help="experience layer: what the trajectories are",
    )
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--pattern", default="*.jsonl", help="file name pattern")
    parser.add_argument("--done", type=Path, help="done-list file [default: under GRAPHMEM_HOME]")
    parser.add_argument("--json", action="store_true", help="print a JSON summary")
    args = parser.parse_args(argv)

    from graphmem_neo4j.errors import GraphMemError
    from graphmem_neo4j.settings import Settings

    if args.workers < 1:
        parser.error("--workers must be at least 1")
    space: str | None = None if args.space_per_file else (args.space or Settings().space)
    started = time.perf_counter()
    try:
        home = prepare(space)
    except GraphMemError as e:
        print(f"error: {e}", file=sys.stderr)
        return e.exit_code
    directory: Path = args.directory
    done_path = args.done or default_done_path(home, directory, space, args.layer)
    done = DoneList(done_path)
    files = discover(directory, args.pattern)
    todo, skipped = plan(directory, files, layer=args.layer, kind=args.kind, space=space, done=done)
    workers = effective_workers(args.workers, args.layer, space is not None)
    if not args.json:
        print(
            f"{len(files)} files: {len(skipped)} already done, {len(todo)} to ingest with "
            f"{workers} worker(s); done list {done_path}",
            file=sys.stderr,
        )
    with progress_bar(sum(j.items for j in todo), enabled=not args.json) as report:
        outcomes = run(todo, workers=workers, done=done, on_outcome=report)
    seconds = time.perf_counter() - started
    ok = [o for o in outcomes if o.status == "done"]
    items = sum(o.items for o in ok)
    summary: dict[str, Any] = {
        "files": len(files),
        "skipped": len(skipped),
        "done": len(ok),
        "rejected": [asdict(o) for o in outcomes if o.status == "rejected"],
        "failed": [asdict(o) for o in outcomes if o.status == "failed"],
        "items": items,
        "written": sum(o.written for o in ok),
        "seconds": round(seconds, 2),
        "items_per_second": round(items / seconds, 1) if seconds > 0 else None,
        "workers": workers,
        "done_list": str(done_path),
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"ingested {summary['done']} files ({items} items, {summary['written']} written) in "
            f"{seconds:.1f}s; {len(skipped)} already done; {len(summary['rejected'])} rejected, "
            f"{len(summary['failed'])} failed"
        )
        for bad in summary["rejected"] + summary["failed"]:
            print(f"  {bad['name']}: {bad['error']}", file=sys.stderr)
    if summary["rejected"]:
        return EXIT_INPUT
    return EXIT_FAILED if summary["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
