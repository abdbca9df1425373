"""CLI commands of the conversation layer: ingest, search, forget, restore."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import typer

from .common import (
    JSON,
    SKIP_INVALID,
    SPACE,
    emit_json,
    existing_file,
    handle_errors,
    open_memory,
    progress,
    resolve_space,
)

if TYPE_CHECKING:
    from graphmem_neo4j.conversation.models import (
        IngestReport,
        SearchMode,
        SearchResult,
        TurnInput,
    )
    from graphmem_neo4j.errors import Refused

MODES = ("hybrid", "sf", "vector", "fulltext")


def register(app: typer.Typer) -> None:
    """Add this layer's commands to the `graphmem` app."""
    app.command()(ingest)
    app.command()(search)
    app.command()(forget)
    app.command()(restore)


@handle_errors
def ingest(
    file: Path = typer.Argument(..., help="Conversation file to load"),
    fmt: str = typer.Option(
        "jsonl",
        "--format",
        "-f",
        help="jsonl: one turn per line, {session, turn_id, speaker, text, timestamp}; "
        "locomo: LoCoMo's JSON (each sample_id becomes its own space unless --space is given); "
        "longmemeval: LongMemEval's JSON (each question_id's haystack becomes its own space "
        "unless --space is given)",
    ),
    space: str | None = typer.Option(
        None,
        "--space",
        "-s",
        help="Target space [env: GRAPHMEM_SPACE; locomo: the sample_id; longmemeval: the "
        "question_id]",
    ),
    forget_every: int | None = typer.Option(
        None,
        "--forget-every",
        min=0,
        help="Run forgetting after every N ingested turns (default 400; 0 = never)",
        show_default=False,
    ),
    skip_invalid: bool = SKIP_INVALID,
    as_json: bool = JSON,
) -> None:
    """Store conversation turns: embed, extract entities and relations, link sessions.

    The whole file is validated first; a bad row stops it with the file, line and field and
    nothing is written (with --skip-invalid the bad rows are left out and counted instead).
    Re-running a file stores it once; an interrupted run resumes.
    """
    from graphmem_neo4j.conversation.readers import FORMATS, read_turns
    from graphmem_neo4j.errors import InputError, Refused, without_refused_lines

    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}: use {', '.join(FORMATS)}", field="--format")
    existing_file(file)
    refused = Refused(str(file))
    if skip_invalid:
        if fmt != "jsonl":
            raise InputError("works line by line, on jsonl files only", field="--skip-invalid")
        valid = _valid_turns(file, refused)
        total = len(valid)
    else:
        groups = read_turns(file, fmt, space=space)
        total = sum(len(turns) for _, turns in groups)
    memory = open_memory()
    default = resolve_space(None)
    with progress("ingesting", total, enabled=not as_json) as advance:

        def add(target: str | None, turns: list[TurnInput]) -> IngestReport:
            return memory.conversation.add_turns(
                turns, space=target or default, on_progress=advance, forget_every=forget_every
            )

        if skip_invalid:
            reports = [without_refused_lines(valid, lambda ts: add(space, ts), refused)]
        else:
            reports = [add(target, turns) for target, turns in groups]
    for error in refused.errors:
        typer.echo(f"skipped {error}", err=True)
    if as_json:
        if len(reports) > 1:
            emit_json([r.as_dict() for r in reports])
        else:
            emit_json({**reports[0].as_dict(), **(refused.as_dict() if skip_invalid else {})})
        return
    for r in reports:
        rate = r.turns_written / r.seconds if r.seconds else 0.0
        typer.echo(
            f"space {r.space}: {r.turns_written} turns written, {r.turns_skipped} already stored, "
            f"{r.sessions} sessions, {r.entities_created} new entities ({r.entities_merged} "
            f"merged), {r.mentions} mentions, {r.relations} relations "
            f"[{r.extractor} extractor, {r.seconds:.1f}s, {rate:.0f} turns/s]"
        )
        for run in r.forget_runs:
            typer.echo(
                f"  forgetting {run.run_id}: {run.nodes_removed} nodes, "
                f"{run.edges_removed} edges, {run.bytes_removed} bytes removed"
            )
    if skip_invalid:
        typer.echo(refused.summary())


def _valid_turns(file: Path, refused: Refused) -> list[tuple[int, TurnInput]]:
    """--skip-invalid: the turns of the lines that pass the checks `read_turns` makes (a
    repeated turn_id is refused on its second line)."""
    from graphmem_neo4j.conversation.readers import parse_turn_row
    from graphmem_neo4j.errors import InputError, collect_valid

    first: dict[str, int] = {}

    def parse(line: int, row: Any) -> TurnInput:
        turn = parse_turn_row(row, source=str(file), line=line)
        if first.setdefault(turn.turn_id, line) != line:
            raise InputError(
                f"duplicate turn_id {turn.turn_id!r} (first on line {first[turn.turn_id]})",
                source=str(file),
                line=line,
                field="turn_id",
            )
        return turn

    return collect_valid(file, parse, refused)


def _print_result(result: SearchResult) -> None:
    from graphmem_neo4j.conversation.text import from_epoch_ms, truncate

    if not result.hits:
        typer.echo("no matching turns")
    for rank, hit in enumerate(result.hits, start=1):
        when = f" {from_epoch_ms(hit.time).date().isoformat()}" if hit.time is not None else ""
        typer.echo(
            f"{rank:>2}. [{hit.turn_id}] {hit.session}{when} {hit.speaker}: "
            f"{truncate(hit.text, 200)}"
        )
        typer.echo(f"    score {hit.score:.3f} via {', '.join(hit.via)}")
    if result.nodes:
        typer.echo(
            "subgraph: " + ", ".join(f"{n.name} ({n.type}, hop {n.hop})" for n in result.nodes)
        )


@handle_errors
def search(
    query: str | None = typer.Argument(None, help="Question or keywords (omit with --batch)"),
    space: str | None = SPACE,
    k: int = typer.Option(10, "-k", "--k", min=1, max=1000, help="Number of turns to return"),
    mode: str = typer.Option(
        "hybrid",
        "--mode",
        "-m",
        help="hybrid (vector + full-text, ranked with session context), "
        "sf (the paper's entity subgraph), vector, fulltext",
    ),
    ranking: str = typer.Option(
        "auto",
        "--ranking",
        help="How hybrid orders its candidates: learned (the rankers shipped for the embedding "
        "model, one per kind of conversation, chosen by the candidates' length), fusion (the "
        "linear fusion with its rules), auto (learned when the model has one). --json names "
        "the one used as ranked_by",
    ),
    batch: Path | None = typer.Option(
        None,
        "--batch",
        help='JSONL file of {"id": str, "query": str, "space"?: str}; prints one '
        '{"id", "hits"} line per query (the model loads once)',
    ),
    as_json: bool = JSON,
) -> None:
    """Find the turns that answer a question. Returned turns count as accessed (forgetting
    keeps what is used)."""
    from graphmem_neo4j.conversation.models import RANKINGS
    from graphmem_neo4j.errors import InputError

    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r}: use {', '.join(MODES)}", field="--mode")
    if ranking not in RANKINGS:
        raise InputError(
            f"unknown ranking {ranking!r}: use {', '.join(RANKINGS)}", field="--ranking"
        )
    if (query is None) == (batch is None):
        raise InputError("give either a QUERY or --batch FILE", field="query")
    search_mode = cast("SearchMode", mode)
    memory = open_memory()
    name = resolve_space(space)
    service = memory.conversation
    if ranking != service.config.ranking:
        service.config = replace(service.config, ranking=ranking)
    if batch is None:
        assert query is not None
        result = service.search(query, space=name, k=k, mode=search_mode)
        if as_json:
            emit_json(result.as_dict())
        else:
            _print_result(result)
        return
    from graphmem_neo4j.conversation.readers import parse_query_rows

    rows = parse_query_rows(existing_file(batch))
    with progress("searching", len(rows), enabled=not as_json) as advance:
        for row, result in service.search_batch(rows, space=name, k=k, mode=search_mode):
            if as_json:
                hits: list[dict[str, Any]] = [
                    {
                        key: h[key]
                        for key in ("turn_id", "session", "speaker", "text", "score", "via")
                    }
                    for h in result.as_dict()["hits"]
                ]
                line: dict[str, Any] = {"id": row.id, "hits": hits}
                if result.ranked_by:
                    line["ranked_by"] = result.ranked_by
                emit_json(line)
            else:
                typer.echo(f"== {row.id}: {row.query}")
                _print_result(result)
            advance(1)


@handle_errors
def forget(
    space: str | None = SPACE,
    dry_run: bool = typer.Option(False, "--dry-run", help="Report what would go; change nothing"),
    archive: bool = typer.Option(
        True,
        "--archive/--no-archive",
        help="Keep an auditable (:Forgotten) record of each pruned node so `graphmem restore` "
        "can bring it back",
    ),
    threshold: float | None = typer.Option(
        None,
        "--threshold",
        min=0.0,
        max=1.0,
        help="Prune nodes whose importance is below this (default 0.2)",
        show_default=False,
    ),
    min_age: int | None = typer.Option(
        None,
        "--min-age",
        min=0,
        help="Never prune nodes younger than this many turns (default 200)",
        show_default=False,
    ),
    as_json: bool = JSON,
) -> None:
    """Prune low-importance turns and entities with their edges.

    Importance mixes recency, access frequency, degree centrality and age (see
    docs/conversation.md); ingestion also runs this every 400 turns.
    """
    from dataclasses import replace

    memory = open_memory()
    service = memory.conversation
    cfg = service.config.forgetting
    if threshold is not None:
        cfg = replace(cfg, threshold=threshold)
    if min_age is not None:
        cfg = replace(cfg, min_age_turns=min_age)
    report = service.forget(
        space=resolve_space(space), dry_run=dry_run, config=cfg, archive=archive
    )
    if as_json:
        emit_json(report.as_dict())
        return
    verb = "would remove" if report.dry_run else "removed"
    labels = ", ".join(f"{n} {label}" for label, n in sorted(report.removed_by_label.items()))
    typer.echo(
        f"space {report.space}: {verb} {report.nodes_removed} of {report.candidates} nodes"
        f"{f' ({labels})' if labels else ''}, {report.edges_removed} edges, "
        f"{report.bytes_removed} bytes (threshold {report.threshold})"
    )
    if report.archived and report.nodes_removed:
        typer.echo(f"archived as run {report.run_id}: `graphmem restore --run {report.run_id}`")


@handle_errors
def restore(
    space: str | None = SPACE,
    run: str | None = typer.Option(None, "--run", help="Only this forgetting run (default: all)"),
    as_json: bool = JSON,
) -> None:
    """Bring archived (forgotten) turns and entities back, with their edges."""
    report = open_memory().conversation.restore(space=resolve_space(space), run_id=run)
    if as_json:
        emit_json(report.as_dict())
        return
    typer.echo(
        f"space {report.space}: restored {report.nodes_restored} nodes and "
        f"{report.edges_restored} edges from {', '.join(report.runs)}"
    )
