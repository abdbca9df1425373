"""`graphmem examples`: copy the example files the guide's commands read into a folder."""

from __future__ import annotations

from pathlib import Path

import typer

from .common import JSON, emit_json, handle_errors


def register(app: typer.Typer) -> None:
    app.command("examples")(examples)


@handle_errors
def examples(
    directory: Path = typer.Argument(
        Path("examples"), metavar="DIR", help="Folder to copy them into (created if missing)"
    ),
    force: bool = typer.Option(False, "--force", help="Replace files in DIR whose contents differ"),
    as_json: bool = JSON,
) -> None:
    """Copy the example files the guide reads into DIR (default ./examples).

    They come with graphmem (conversations, facts, tasks, trajectories, chat logs and the
    Python API scripts), so that after a `pip install` the guide's commands (`graphmem ingest
    examples/conversation.jsonl --space demo`, ...) run as written from the folder above DIR.

    Files already there with the same contents are left alone, so running it twice changes
    nothing. A file there with other contents stops the copy before anything is written,
    naming the file; --force replaces such files."""
    from graphmem_neo4j.example_files import copy_examples

    copied = copy_examples(directory, force=force)
    if as_json:
        emit_json(
            {
                "directory": str(directory),
                "files": [{"path": c.path, "status": c.status, "bytes": c.bytes} for c in copied],
            }
        )
        return
    counts = {s: sum(c.status == s for c in copied) for s in ("written", "replaced", "unchanged")}
    done = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    typer.echo(f"{len(copied)} example files in {directory}: {done}")
    typer.echo(f"next: graphmem ingest {directory / 'conversation.jsonl'} --space demo")
