"""CLI commands over all four layers: recall, chat-log, mcp."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

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
)

if TYPE_CHECKING:
    from graphmem_neo4j.chatlog import ChatLogReport
    from graphmem_neo4j.recall.models import RecallResult


def register(app: typer.Typer) -> None:
    """Add these commands to the `graphmem` app."""
    app.command()(recall)
    app.command("chat-log")(chat_log)
    app.command()(mcp)


def _print_recall(result: RecallResult) -> None:
    typer.echo(result.context or "(nothing in memory matches this query)")
    typer.echo("")
    layers = ", ".join(f"{r.layer} {r.tokens} ({r.packed}/{r.candidates})" for r in result.layers)
    typer.echo(
        f"-- {result.tokens_used}/{result.budget_tokens} tokens: {layers}; "
        f"{result.duplicates} duplicates, {result.over_budget} over budget, "
        f"{result.below_min_score} below the minimum score; {result.elapsed_ms:.0f} ms",
        err=True,
    )


@handle_errors
def recall(
    query: str = typer.Argument(..., help="What the agent is about to do, or a question"),
    space: str | None = SPACE,
    budget: int = typer.Option(
        2000, "--budget", "-b", min=20, max=200_000, help="Context size in (estimated) tokens"
    ),
    layers: str | None = typer.Option(
        None,
        "--layers",
        "-l",
        help="Comma-separated subset of conversation,facts,insights,experience (default: all)",
        show_default=False,
    ),
    as_json: bool = JSON,
) -> None:
    """The best context for a query from every memory layer, within a token budget.

    Turns, current facts (on evidence paths), insights of similar past tasks and experience
    of similar tasks are scored on one scale, de-duplicated and packed; each line names its
    layer, node label, id, score and why it was chosen, so it can be found in Neo4j Browser
    (MATCH (n:Turn {space: 'S', id: 'ID'}) RETURN n). The token count per layer goes to
    stderr (and into `graphmem stats`).
    """
    memory = open_memory()
    result = memory.recall(query, space=resolve_space(space), budget_tokens=budget, layers=layers)
    if as_json:
        emit_json(result.as_dict())
    else:
        _print_recall(result)


def _print_chat_log(report: ChatLogReport) -> None:
    t = report.turns
    typer.echo(
        f"space {report.space}, session {report.session}: {t.turns_written} turns written, "
        f"{t.turns_skipped} already stored"
    )
    if report.facts is None:
        typer.echo(f"facts: none found ({report.facts_by})")
    else:
        counts = report.facts.counts()
        typer.echo(
            f"facts ({report.facts_by}): {counts['facts']} read, {counts.get('created', 0)} new, "
            f"{counts.get('unchanged', 0)} unchanged, {counts['superseded']} superseded, "
            f"{counts['outdated']} outdated"
        )
    if report.task is not None:
        task = report.task
        line = f"task {task.id}: {task.outcome}, {len(task.retrieved)} insight(s) retrieved"
        if task.feedback is not None and task.feedback.applied:
            line += (
                f"; controller: {len(task.feedback.plan.edits)} edit(s), "
                f"created {len(task.feedback.created)}, archived {len(task.feedback.archived)}"
            )
        typer.echo(line)
    if report.trajectory is not None:
        r = report.trajectory
        typer.echo(
            f"trajectory: {r.added} added, {r.unchanged} unchanged, {r.replaced} replaced "
            f"({r.actions} actions, {r.matched_pairs} matched)"
        )
    if report.llm.calls:
        typer.echo(
            f"LLM: {report.llm.calls} calls, {report.llm.prompt_tokens} prompt + "
            f"{report.llm.completion_tokens} completion tokens"
        )


@handle_errors
def chat_log(
    file: Path = typer.Argument(
        ...,
        help="JSONL transcript: turns {speaker|role, text|content, timestamp?}, agent steps "
        "{action, observation} and at most one {outcome: resolved|failed, ...} line",
    ),
    space: str | None = SPACE,
    session: str | None = typer.Option(
        None, "--session", help="Session id of the turns (default: the file name without .jsonl)"
    ),
    outcome: str | None = typer.Option(
        None,
        "--outcome",
        help="resolved or failed: also record the session as a task (overrides the log's line)",
        show_default=False,
    ),
    task_id: str | None = typer.Option(None, "--task-id", help="Default: chat:<session>"),
    query: str | None = typer.Option(
        None, "--query", help="The task's query (default: the first turn)"
    ),
    reward: float | None = typer.Option(
        None, "--reward", min=0.0, max=1.0, help="Default: 1 when resolved, 0 when failed"
    ),
    answer: str | None = typer.Option(None, "--answer", help="The task's final answer"),
    feedback: str | None = typer.Option(None, "--feedback", help="What the user said about it"),
    learn: bool = typer.Option(
        True,
        "--learn/--no-learn",
        help="Run the insight controller on the task now (else: `graphmem insights feedback`)",
    ),
    as_json: bool = JSON,
) -> None:
    """Keep the whole memory current from one session transcript.

    The turns go to conversation memory; facts stated in them (LLM, or offline patterns
    that read first person as the speaker) to the facts layer; with an outcome, the session
    becomes a task record judged by the insight controller, and its agent steps a trajectory
    (resolved: expert run, failed: exploration run). The whole log is checked first: a bad
    line stops it with file, line and field, and nothing is stored. Running it twice stores
    it once.
    """
    existing_file(file)
    memory = open_memory()
    overrides = {
        "outcome": outcome,
        "task_id": task_id,
        "query": query,
        "reward": reward,
        "answer": answer,
        "feedback": feedback,
    }
    with progress("updating memory", None, enabled=not as_json):
        report = memory.add_chat_log(
            file, space=resolve_space(space), session=session, outcome=overrides, learn=learn
        )
    if as_json:
        emit_json(report.as_dict())
    else:
        _print_chat_log(report)


@handle_errors
def mcp(space: str | None = SPACE) -> None:
    """Serve the memory to an MCP client over stdin/stdout (Claude Desktop, Cursor, agents).

    Tools: recall, add_turns, add_facts, record_task, add_trajectory, feedback, token_usage;
    `--space` is the default space of every tool. Configure the client to run
    `graphmem mcp --space NAME` (with GRAPHMEM_* variables for the engine).
    """
    from graphmem_neo4j.mcp_server import serve

    serve(open_memory(), space=resolve_space(space))
