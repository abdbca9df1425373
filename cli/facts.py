"""CLI commands of the facts layer: `graphmem facts ...` (HiGram §3)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

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
    from graphmem_neo4j.facts.models import FactInput, IngestReport, MemoryUnit

SUBJECT = typer.Option(..., "--subject", help="Whose facts (any spelling: 'Alice', 'alice')")
RELATION = typer.Option(None, "--relation", "-r", help="Only this relation ('lives_in')")

facts_app = typer.Typer(
    rich_markup_mode=None,  # plain help, see main.py
    help="A fact memory that keeps its history: MemoryUnits under Subject, Category and "
    "Context nodes, localised by MicroGraph and evidence path, rewritten together with what "
    "depends on them (HiGram §3).",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    """Add this layer's commands to the `graphmem` app."""
    app.add_typer(facts_app, name="facts")


def _since(unit: MemoryUnit) -> str:
    d = unit.as_dict()
    until = f" until {d['valid_to']}" if d["valid_to"] else ""
    return f"from {d['valid_from']}{until}"


def _line(unit: MemoryUnit) -> str:
    where = f" [{unit.context}]" if unit.context else ""
    return (
        f"{unit.id}  {unit.subject} {unit.relation} {unit.object}{where}  "
        f"({unit.status.value}, {_since(unit)}, confidence {unit.confidence:.2f})"
    )


def _print_report(report: IngestReport) -> None:
    counts = report.counts()
    typer.echo(
        f"space {report.space}: {counts['facts']} facts: {counts.get('created', 0)} new, "
        f"{counts.get('unchanged', 0)} already stored, {counts.get('pending', 0)} pending "
        f"(contested), {counts.get('historical', 0)} historical; {counts['superseded']} "
        f"superseded, {counts['outdated']} outdated"
    )
    for o in report.outcomes:
        if o.superseded or o.outdated or o.action in ("pending", "historical"):
            extra = []
            if o.superseded:
                extra.append("supersedes " + ", ".join(o.superseded))
            if o.outdated:
                extra.append("outdates " + ", ".join(o.outdated))
            where = f"line {o.line}: " if o.line is not None else ""
            typer.echo(f"  {where}{o.id} {o.action} ({o.status.value}) {'; '.join(extra)}")


@facts_app.command("add")
@handle_errors
def add(
    file: Path = typer.Argument(..., help="Facts JSONL, one fact a line"),
    space: str | None = SPACE,
    skip_invalid: bool = SKIP_INVALID,
    as_json: bool = JSON,
) -> None:
    """Add structured facts from a JSONL file (no LLM needed). One JSON object a line:

    {"id"?: str, "subject": str, "relation": str, "object": str, "category": str,
    "context"?: str, "valid_from"?: ISO-8601, "confidence"?: 0..1, "depends_on"?: [ids],
    "source"?: str}

    A new value for a (subject, relation, context) supersedes the old one; a later claim much
    weaker than a well-supported value stays pending; units that depended on a changed unit
    become outdated. The whole file is checked first: one bad line and nothing is stored.
    Adding the same file again changes nothing.
    """
    from graphmem_neo4j.errors import Refused, collect_valid, without_refused_lines
    from graphmem_neo4j.facts.parsing import parse_fact, read_facts_file

    existing_file(file)
    refused = Refused(str(file))
    if skip_invalid:
        items = collect_valid(
            file, lambda line, data: parse_fact(data, source=str(file), line=line), refused
        )
    else:
        items = read_facts_file(file)
    line_of = {id(item): line for line, item in items}
    memory = open_memory()
    name = resolve_space(space)
    with progress("adding facts", len(items), enabled=not as_json) as advance:

        def add_all(facts: list[FactInput]) -> IngestReport:
            return memory.facts.add_facts(
                facts,
                space=name,
                lines=[line_of[id(f)] for f in facts],
                source_name=str(file),
                on_progress=advance,
            )

        if skip_invalid:
            report = without_refused_lines(items, add_all, refused)
        else:
            report = add_all([item for _, item in items])
    for error in refused.errors:
        typer.echo(f"skipped {error}", err=True)
    if as_json:
        emit_json({**report.as_dict(), **(refused.as_dict() if skip_invalid else {})})
        return
    _print_report(report)
    if skip_invalid:
        typer.echo(refused.summary())


@facts_app.command("add-text")
@handle_errors
def add_text(
    text: str = typer.Argument(..., help="Statements, e.g. 'Alice lives in Paris since 2021.'"),
    space: str | None = SPACE,
    source: str | None = typer.Option(None, "--source", help="Where the text comes from"),
    offline: bool = typer.Option(
        False, "--offline", help="Use the offline patterns even when an LLM is configured"
    ),
    as_json: bool = JSON,
) -> None:
    """Add facts read from free text. With an LLM configured (GRAPHMEM_LLM=openai) the model
    builds the units; without one, offline patterns read simple statements: "Alice lives in
    Paris", "Bob's employer is Acme since 2021", "Alice drinks tea in the evening"."""
    memory = open_memory()
    report = memory.facts.add_text(
        text, space=resolve_space(space), source=source, use_llm=False if offline else None
    )
    if as_json:
        emit_json(report.as_dict())
    else:
        _print_report(report)


@facts_app.command("ask")
@handle_errors
def ask(
    query: str = typer.Argument(..., help="A question, e.g. 'Where does Alice live?'"),
    space: str | None = SPACE,
    k: int = typer.Option(5, "-k", "--top-k", min=1, help="Ranked units to list"),
    as_json: bool = JSON,
) -> None:
    """Answer from current memory: anchors → MicroGraphs → support subgraph → evidence paths
    scored by φ_H; prints the best path, its active units and the answer unit."""
    memory = open_memory()
    result = memory.facts.ask(query, space=resolve_space(space), k=k)
    if as_json:
        emit_json(result.as_dict())
        return
    if result.answer is not None:
        typer.echo(f"answer: {result.answer.object}")
    else:
        typer.echo("answer: (no unit matches the question well)")
    if result.path is not None:
        typer.echo(f"evidence path (score {result.path.score.total:.3f}):")
        for unit in result.path.units:
            typer.echo(f"  {_line(unit)}")
    if result.hits:
        typer.echo("ranked units:")
        for hit in result.hits:
            typer.echo(f"  {hit.rank}. {hit.score:.3f} {_line(hit.unit)}")
    s = result.stats
    typer.echo(
        f"localised: {s.micrographs} of {s.candidate_micrographs} MicroGraphs, "
        f"{s.units_read} units read, {s.paths} paths, {s.elapsed_ms:.1f} ms"
    )


@facts_app.command("current")
@handle_errors
def current(
    subject: str = SUBJECT,
    relation: str | None = RELATION,
    category: str | None = typer.Option(None, "--category", "-c", help="Only this category"),
    context: str | None = typer.Option(None, "--context", help="Only units of this context"),
    as_of: str | None = typer.Option(
        None, "--as-of", help="Valid at this ISO-8601 time instead of now (history included)"
    ),
    space: str | None = SPACE,
    as_json: bool = JSON,
) -> None:
    """The subject's facts valid now (status active), or at --as-of."""
    from graphmem_neo4j.facts.models import view_dict

    memory = open_memory()
    units = memory.facts.current(
        subject,
        space=resolve_space(space),
        relation=relation,
        category=category,
        context=context,
        as_of=as_of,
    )
    if as_json:
        emit_json({"units": [view_dict(u) for u in units]})
        return
    if not units:
        typer.echo("no units")
    for unit in units:
        typer.echo(_line(unit))


@facts_app.command("history")
@handle_errors
def history(
    subject: str = SUBJECT,
    relation: str | None = RELATION,
    space: str | None = SPACE,
    as_json: bool = JSON,
) -> None:
    """Every version of the subject's facts with its status: active, superseded (by what),
    outdated, or pending (and what it contested)."""
    memory = open_memory()
    entries = memory.facts.history(subject, space=resolve_space(space), relation=relation)
    if as_json:
        emit_json({"units": [e.as_dict() for e in entries]})
        return
    if not entries:
        typer.echo("no units")
    for e in entries:
        note = ""
        if e.superseded_by:
            note = f"  superseded by {e.superseded_by}"
        elif e.contests:
            note = f"  contests {e.contests}"
        typer.echo(_line(e.unit) + note)


@facts_app.command("path")
@handle_errors
def path(
    unit_id: str = typer.Argument(..., help="A unit id (see `facts current` or `facts history`)"),
    space: str | None = SPACE,
    as_json: bool = JSON,
) -> None:
    """The dependency chain of a unit: the units it rests on and the units resting on it."""
    memory = open_memory()
    chain = memory.facts.path(unit_id, space=resolve_space(space))
    if as_json:
        emit_json(chain.as_dict())
        return
    typer.echo(_line(chain.unit))
    typer.echo("supported by:" if chain.supporters else "supported by: nothing")
    for unit in chain.supporters:
        typer.echo(f"  {_line(unit)}")
    typer.echo("supports:" if chain.dependents else "supports: nothing")
    for unit in chain.dependents:
        typer.echo(f"  {_line(unit)}")
    for a, b in chain.edges:
        typer.echo(f"  {a} -> {b}")
