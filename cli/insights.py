"""CLI commands of the insights layer: `graphmem tasks ...` and `graphmem insights ...`."""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    from graphmem_neo4j.errors import Refused
    from graphmem_neo4j.insights.models import (
        FeedbackResult,
        InsightHistory,
        RecordSummary,
        TaskRecord,
    )

TOP_K = typer.Option(5, "-k", "--top-k", min=1, help="Similar past queries to start from (eq. 2)")
TOP_B = typer.Option(5, "-b", "--top-b", min=1, help="Insights to return (eq. 10)")
LAMBDA = typer.Option(
    1.0, "--lambda", min=0.0, help="Penalty per piece of negative evidence: r = s − λ·c (eq. 8)"
)

tasks_app = typer.Typer(
    rich_markup_mode=None,  # plain help, see main.py
    help="Record finished agent tasks into the query graph (EvoGraph-Mem §3.1).",
    no_args_is_help=True,
)
insights_app = typer.Typer(
    rich_markup_mode=None,  # plain help, see main.py
    help="Retrieve, maintain and audit insights learnt from tasks (EvoGraph-Mem §3.2-3.4).",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    """Add this layer's commands to the `graphmem` app."""
    app.add_typer(tasks_app, name="tasks")
    app.add_typer(insights_app, name="insights")


def _requester() -> str:
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):
        return "cli"


def _clip(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


@tasks_app.command("record")
@handle_errors
def record(
    file: Path = typer.Argument(..., help="JSONL file, one task a line"),
    space: str | None = SPACE,
    top_k: int = TOP_K,
    top_b: int = TOP_B,
    lam: float = LAMBDA,
    learn: bool = typer.Option(
        False,
        "--feedback",
        help="Run the graph controller on each task right after recording it (online loop)",
    ),
    skip_invalid: bool = SKIP_INVALID,
    as_json: bool = JSON,
) -> None:
    """Record finished tasks (JSONL, one task a line) into the query graph.

    Each line: {"id": str, "query": str, "status": "resolved"|"failed", "steps": [{"role"?: str,
    "action": str, "observation": str}], "answer"?: str, "feedback"?: str}.

    Each task is stored with the insights retrieval returns for it now (what the controller
    judges with `graphmem insights feedback`, or right away with --feedback) and linked to
    its nearest earlier queries. The whole file is checked first: one bad line and nothing
    is stored. Recording the same file again changes nothing.
    """
    from graphmem_neo4j.errors import Refused, without_refused_lines
    from graphmem_neo4j.insights.models import RetrievalParams
    from graphmem_neo4j.insights.parsing import read_tasks

    existing_file(file)
    refused = Refused(str(file))
    if skip_invalid:
        valid = _valid_tasks(file, refused)
    else:
        parsed = read_tasks(file)
        valid = [(parsed.lines[t.id], t) for t in parsed.tasks]
    lines = {task.id: line for line, task in valid}
    params = RetrievalParams(k=top_k, b=top_b, lam=lam)
    memory = open_memory()
    name = resolve_space(space)
    with progress("recording tasks", len(valid), enabled=not as_json) as advance:

        def record_all(tasks: list[TaskRecord]) -> RecordSummary:
            return memory.insights.record_tasks(
                tasks,
                space=name,
                params=params,
                source=str(file),
                lines=lines,
                on_progress=advance,
                learn=learn,
                requested_by=_requester(),
            )

        if skip_invalid:
            summary = without_refused_lines(valid, record_all, refused)
        else:
            summary = record_all([task for _, task in valid])
    for error in refused.errors:
        typer.echo(f"skipped {error}", err=True)
    if as_json:
        emit_json({**summary.as_dict(), **(refused.as_dict() if skip_invalid else {})})
        return
    typer.echo(
        f"space {name}: recorded {summary.recorded} task(s), {summary.unchanged} already there"
    )
    for task in summary.tasks:
        if task.outcome == "recorded":
            typer.echo(f"{task.id}: {len(task.retrieved)} insight(s) retrieved")
        if task.feedback is not None and not task.feedback.already_applied:
            _print_edits(task.feedback)
    if skip_invalid:
        typer.echo(refused.summary())


def _valid_tasks(file: Path, refused: Refused) -> list[tuple[int, TaskRecord]]:
    """--skip-invalid: the tasks of the lines that pass the checks `read_tasks` makes (an id
    repeated with other content is refused on its later line; an exact repeat is dropped)."""
    from graphmem_neo4j.errors import InputError, collect_valid
    from graphmem_neo4j.insights.parsing import task_from_dict

    first: dict[str, tuple[int, str]] = {}
    repeats: set[int] = set()

    def parse(line: int, data: Any) -> TaskRecord:
        task = task_from_dict(data, source=str(file), line=line)
        earlier, digest = first.setdefault(task.id, (line, task.content_hash()))
        if earlier != line:
            if digest != task.content_hash():
                raise InputError(
                    f"task {task.id!r} appears on line {earlier} with other content",
                    source=str(file),
                    line=line,
                    field="id",
                )
            repeats.add(line)
        return task

    return [(line, t) for line, t in collect_valid(file, parse, refused) if line not in repeats]


@tasks_app.command("show")
@handle_errors
def show(
    task_id: str = typer.Argument(..., help="Id of a recorded task"),
    space: str | None = SPACE,
    as_json: bool = JSON,
) -> None:
    """Show a recorded task, what was retrieved for it, and the controller's decisions.

    Steps in order, each retrieved insight with its rank and utility, and (once feedback was
    applied) the edit chosen for each insight and the ADD decision, with reasons."""
    view = open_memory().insights.get_task(task_id, space=resolve_space(space))
    if as_json:
        emit_json(view.as_dict())
        return
    typer.echo(f"{view.id} [{view.status}] {view.query}")
    for n, step in enumerate(view.steps):
        typer.echo(
            f"  {n:>3} {step.role}: {_clip(step.action, 50)} -> {_clip(step.observation, 40)}"
        )
    typer.echo(f"retrieved {len(view.retrieved)} insight(s):")
    for r in view.retrieved:
        state = "active" if r.active else "archived"
        typer.echo(f"  #{r.rank} {r.id} r={r.score:g} ({state}) {_clip(r.text)}")
    if view.plan is None:
        typer.echo("feedback: not applied yet")
    else:
        typer.echo(f"feedback: decided by {view.plan.decided_by}")
        for edit in view.plan.edits:
            typer.echo(f"  {edit.operation:<8} {edit.insight_id}: {edit.reason}")
        verdict = "ADD" if view.plan.add.decision else "no ADD"
        typer.echo(f"  {verdict}: {view.plan.add.reason}")


@insights_app.command("retrieve")
@handle_errors
def retrieve(
    query: str = typer.Argument(..., help="The new task or question"),
    space: str | None = SPACE,
    top_b: int = TOP_B,
    lam: float = LAMBDA,
    top_k: int = TOP_K,
    task_type: str | None = typer.Option(
        None,
        "--task-type",
        help="The kind of task, when you know it: only tasks recorded as that kind match "
        "(default: the kind is learnt from the space's resolved tasks)",
    ),
    as_json: bool = JSON,
) -> None:
    """Rank insights for a new query by utility r = s − λ·c.

    Starts from the top-k similar past queries plus their neighbours on the
    query graph, active insights with positive evidence among them, ranked by utility
    r = s − λ·c (positive minus λ times negative evidence inside that set).

    JSON: {"insights": [{"id", "text", "score", "positive", "negative"}]}.
    """
    from graphmem_neo4j.insights.models import RetrievalParams

    params = RetrievalParams(k=top_k, b=top_b, lam=lam)
    result = open_memory().insights.retrieve(
        query, space=resolve_space(space), params=params, task_type=task_type
    )
    if as_json:
        emit_json(result.as_dict())
        return
    if not result.insights:
        typer.echo("no insight applies (no active insight has positive evidence nearby)")
    for c in result.insights:
        typer.echo(f"{c.score:>6g}  +{c.positive}/-{c.negative}  {c.id}  {_clip(c.text)}")


@insights_app.command("feedback")
@handle_errors
def feedback(
    task_ids: list[str] | None = typer.Argument(None, help="Recorded task ids, judged in order"),
    space: str | None = SPACE,
    pending: bool = typer.Option(
        False, "--pending", help="Every recorded task not judged yet, in recording order"
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Show the controller's decisions without applying them"
    ),
    as_json: bool = JSON,
) -> None:
    """Run the graph controller on recorded tasks (KEEP / ARCHIVE / REVISE, and ADD).

    For each insight retrieved when the task was recorded: KEEP (the task joins its positive
    evidence), ARCHIVE (negative evidence, deactivated) or REVISE (archived, replaced by a
    narrower active insight); then ADD one new insight if the task taught something new.

    With GRAPHMEM_LLM=openai an LLM decides (the EvoGraph-Mem prompt); otherwise deterministic
    rules do (see docs/insights.md). A task is judged once: running it again changes nothing.
    """
    memory = open_memory()
    name = resolve_space(space)
    ids = list(task_ids or [])
    if pending:
        ids += [i for i in memory.insights.pending_feedback(space=name) if i not in ids]
    if not ids:
        from graphmem_neo4j.errors import InputError

        raise InputError("give task ids or --pending", field="task_ids")
    results: list[FeedbackResult] = []
    requested_by = _requester()
    with progress("applying feedback", len(ids), enabled=not as_json and len(ids) > 1) as advance:
        for task_id in ids:
            results.append(
                memory.insights.feedback(
                    task_id, space=name, dry_run=dry_run, requested_by=requested_by
                )
            )
            advance(1)
    if as_json:
        emit_json({"results": [r.as_dict() for r in results]})
        return
    for result in results:
        _print_feedback(result)


def _print_feedback(result: FeedbackResult) -> None:
    if result.already_applied:
        state = "already applied earlier; nothing changed"
    elif result.applied:
        state = "applied"
    else:
        state = "dry run, nothing applied"
    typer.echo(f"{result.task_id}: {state} (decided by {result.plan.decided_by})")
    _print_edits(result)


def _print_edits(result: FeedbackResult) -> None:
    for edit in result.plan.edits:
        typer.echo(f"  {edit.operation:<8} {edit.insight_id}: {edit.reason}")
    if result.plan.add.decision:
        typer.echo(f"  ADD      {_clip(result.plan.add.text or '')}")
    else:
        typer.echo(f"  no ADD: {result.plan.add.reason}")
    if result.created:
        typer.echo(f"  created: {', '.join(result.created)}")


@insights_app.command("history")
@handle_errors
def history(
    insight_id: str = typer.Argument(..., help="An insight id (active or archived)"),
    space: str | None = SPACE,
    as_json: bool = JSON,
) -> None:
    """Show the audited edit trail of an insight and its revision lineage.

    Every change with who made it (actor, requested by), when, on which task, and why."""
    trail = open_memory().insights.history(insight_id, space=resolve_space(space))
    if as_json:
        emit_json(trail.as_dict())
        return
    _print_history(trail)


def _print_history(trail: InsightHistory) -> None:
    from datetime import UTC, datetime

    i = trail.insight
    typer.echo(f"{i.id} [{'active' if i.active else 'archived'}] +{i.positive}/-{i.negative}")
    typer.echo(f"  {i.text}")
    if trail.ancestors:
        typer.echo(f"  revised from: {' <- '.join(trail.ancestors)}")
    if trail.successors:
        typer.echo(f"  revised into: {' -> '.join(trail.successors)}")
    for e in trail.edits:
        when = datetime.fromtimestamp(e.at / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%S")
        related = ""
        if e.related_id and e.operation == "REVISE":
            related = f" into {e.related_id}"
        elif e.related_id:
            related = f" from {e.related_id}"
        task = f" on task {e.query_id}" if e.query_id else ""
        typer.echo(f"{when}Z {e.operation} of {e.insight_id}{related}{task}")
        typer.echo(f"    by {e.actor}, requested by {e.requested_by}: {e.reason}")


@insights_app.command("list")
@handle_errors
def list_cmd(
    space: str | None = SPACE,
    archived: bool = typer.Option(False, "--all", help="Include archived insights"),
    as_json: bool = JSON,
) -> None:
    """List insights with their evidence counts (active ones unless --all)."""
    rows = open_memory().insights.list_insights(
        space=resolve_space(space), include_archived=archived
    )
    if as_json:
        emit_json([r.as_dict() for r in rows])
        return
    for r in rows:
        state = "active  " if r.active else "archived"
        typer.echo(f"{state} +{r.positive}/-{r.negative}  {r.id}  {_clip(r.text)}")


@insights_app.command("add")
@handle_errors
def add(
    text: str = typer.Argument(..., help="The insight"),
    evidence: list[str] | None = typer.Option(
        None, "--evidence", "-e", help="A recorded task it helped (repeatable); retrieval needs one"
    ),
    space: str | None = SPACE,
    as_json: bool = JSON,
) -> None:
    """Add an insight by hand, with recorded tasks as positive evidence.

    Retrieval only finds insights with positive evidence near the query, so give at least one
    --evidence task. Adding the same text twice stores it once."""
    insight = open_memory().insights.add_insight(
        text, space=resolve_space(space), evidence=list(evidence or []), actor=_requester()
    )
    if as_json:
        emit_json(insight.as_dict())
        return
    typer.echo(f"{insight.id} +{insight.positive}/-{insight.negative}  {_clip(insight.text)}")
