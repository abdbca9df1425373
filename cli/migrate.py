"""`graphmem migrate mem0|graphiti`: adopt a memory graph another tool wrote into Neo4j."""

from __future__ import annotations

from typing import Any

import typer

from .common import JSON, emit_json, handle_errors, open_memory, progress

migrate_app = typer.Typer(
    rich_markup_mode=None,
    help="Import a memory graph that Mem0 (1.0.x graph store) or Graphiti wrote into Neo4j. "
    "The source is only read (read-only sessions); graphmem's configured engine is written. "
    "Re-running stores nothing new; a run after a crash stores the rest.",
    no_args_is_help=True,
)

SOURCE_URI = typer.Option(
    ..., "--source-uri", envvar="GRAPHMEM_MIGRATE_SOURCE_URI", help="Source Neo4j, bolt://..."
)
SOURCE_USER = typer.Option("neo4j", "--source-user", help="Source Neo4j user")
SOURCE_PASSWORD = typer.Option(
    None,
    "--source-password",
    envvar="GRAPHMEM_MIGRATE_SOURCE_PASSWORD",
    help="Source Neo4j password (or GRAPHMEM_MIGRATE_SOURCE_PASSWORD)",
)
SOURCE_DATABASE = typer.Option(
    None, "--source-database", help="Source database (default: the server's default)"
)
TARGET_SPACE = typer.Option(
    None,
    "--space",
    help="Target space (needs one source user/group; default: one space per user_id/group_id)",
)
DRY_RUN = typer.Option(
    False,
    "--dry-run",
    help="Print what would be imported per space, and what is skipped and why; write nothing",
)


def register(app: typer.Typer) -> None:
    app.add_typer(migrate_app, name="migrate")


@migrate_app.command("mem0")
@handle_errors
def mem0(
    source_uri: str = SOURCE_URI,
    source_user: str = SOURCE_USER,
    source_password: str | None = SOURCE_PASSWORD,
    source_database: str | None = SOURCE_DATABASE,
    user_id: str | None = typer.Option(None, "--user-id", help="Only this Mem0 user_id"),
    space: str | None = TARGET_SPACE,
    dry_run: bool = DRY_RUN,
    as_json: bool = JSON,
) -> None:
    """Mem0 1.0.x graph store: entities become Subjects (their type label the category),
    each relationship a fact valid from its created_at; soft-deleted ones (valid=false) are
    closed at invalidated_at, so `facts current --as-of` answers as the source did."""
    _run(
        "mem0",
        source_uri,
        source_user,
        source_password,
        source_database,
        user_id,
        space,
        dry_run,
        as_json,
    )


@migrate_app.command("graphiti")
@handle_errors
def graphiti(
    source_uri: str = SOURCE_URI,
    source_user: str = SOURCE_USER,
    source_password: str | None = SOURCE_PASSWORD,
    source_database: str | None = SOURCE_DATABASE,
    group_id: str | None = typer.Option(None, "--group-id", help="Only this Graphiti group_id"),
    space: str | None = TARGET_SPACE,
    dry_run: bool = DRY_RUN,
    as_json: bool = JSON,
) -> None:
    """Graphiti: episodes become turns (time order), entities Subjects, RELATES_TO edges
    facts with valid_at/invalid_at as valid time and created_at as recorded time (expired
    or invalidated ones closed), their episodes kept as the fact's source."""
    _run(
        "graphiti",
        source_uri,
        source_user,
        source_password,
        source_database,
        group_id,
        space,
        dry_run,
        as_json,
    )


def _run(
    kind: Any,
    uri: str,
    user: str,
    password: str | None,
    database: str | None,
    key: str | None,
    space: str | None,
    dry_run: bool,
    as_json: bool,
) -> None:
    from graphmem_neo4j.errors import InputError
    from graphmem_neo4j.migrate.run import migrate
    from graphmem_neo4j.migrate.source import SourceConfig

    if space is not None and key is None:
        raise InputError(
            "--space names one target: give the source's --user-id / --group-id too",
            field="space",
        )
    memory = None if dry_run else open_memory()
    summary = migrate(
        memory,
        SourceConfig(uri, user, password, database),
        kind,
        key=key,
        space=space,
        dry_run=dry_run,
        progress=lambda label, total: progress(label, total, enabled=not as_json),
    )
    if as_json:
        emit_json(summary)
        return
    _print(summary)


def _print(summary: dict[str, Any]) -> None:
    verb = "would import" if summary["dry_run"] else "imported"
    if not summary["spaces"]:
        typer.echo(f"no {summary['kind']} data found in the source")
    for name, s in summary["spaces"].items():
        line = (
            f"space {name} ({summary['kind']} {s['source']}): {verb} {s['entities']} entities, "
            f"{s['facts']} facts ({s['closed_facts']} closed), {s['turns']} turns in "
            f"{s['sessions']} sessions, {s['mentions']} mentions"
        )
        typer.echo(line)
        for label, count in s["reported"].items():
            typer.echo(f"  not imported: {count} {label}")
        written = s.get("written")
        if written:
            typer.echo(
                f"  stored {written['stored']} new: {written['entities_stored']} entities, "
                f"{written['facts_stored']} facts, {written['turns_stored']} turns; "
                f"{written['facts_reclosed']} facts re-closed, "
                f"{written['facts_unchanged'] + written['turns_unchanged']} already stored"
            )
    skipped = summary["skipped"]
    if skipped:
        typer.echo(f"skipped {len(skipped)} source elements:")
        for reason, count in summary["skipped_by_reason"].items():
            typer.echo(f"  {count} × {reason}")
        for s in skipped[:20]:
            typer.echo(f"  {s['kind']} {s['element_id']}: {s['reason']}")
        if len(skipped) > 20:
            typer.echo(f"  ... {len(skipped) - 20} more (--json lists all)")
    if "source_unchanged" in summary and not summary["source_unchanged"]:
        typer.echo(
            "note: the source's node/relationship counts changed during the run (another writer?)"
        )
