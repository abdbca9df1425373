"""CLI commands of the experience layer: `graphmem experience add | diff | retrieve`."""

from __future__ import annotations

from contextlib import ExitStack
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
    from graphmem_neo4j.errors import Refused
    from graphmem_neo4j.experience.models import AddReport, GraphDiff, Kind, Trajectory
    from graphmem_neo4j.experience.parsing import Format

FORMAT_HELP = "alfworld (conversations), jsonl ({id, task, reward, steps}) or auto (per line)"

app = typer.Typer(
    rich_markup_mode=None,  # plain help, see main.py
    help="Experience memory: trajectories as action decision graphs, exploration-vs-expert "
    "graph matching into corrections and workflows, cross-task insights, retrieval of "
    "guidance for a new task (Experience Memory Graph).",
    no_args_is_help=True,
)


def register(parent: typer.Typer) -> None:
    """Add this layer's commands to the `graphmem` app."""
    parent.add_typer(app, name="experience")


def _kind(value: str) -> Kind:
    from graphmem_neo4j.errors import InputError

    if value in ("expert", "exploration"):
        return cast("Kind", value)
    raise InputError(f"unknown kind {value!r}: use expert or exploration", field="--kind")


def _format(value: str) -> Format:
    from graphmem_neo4j.errors import InputError

    if value in ("auto", "alfworld", "jsonl"):
        return cast("Format", value)
    raise InputError(f"unknown format {value!r}: use auto, alfworld or jsonl", field="--format")


class _Bars:
    """One progress bar per phase of `add`, opened when the phase first reports."""

    def __init__(self, stack: ExitStack, enabled: bool) -> None:
        self.stack = stack
        self.enabled = enabled
        self.bars: dict[str, Any] = {}

    def __call__(self, phase: str, advance: int, total: int) -> None:
        if phase not in self.bars:
            self.bars[phase] = self.stack.enter_context(
                progress(phase, total, enabled=self.enabled)
            )
        self.bars[phase](advance)


@app.command("add")
@handle_errors
def add(
    file: Path = typer.Argument(..., help="Trajectories, one JSON object per line"),
    kind: str = typer.Option(
        "expert", "--kind", help="expert (successful reference runs) or exploration (attempts)"
    ),
    fmt: str = typer.Option("auto", "--format", help=FORMAT_HELP),
    space: str | None = SPACE,
    skip_invalid: bool = SKIP_INVALID,
    as_json: bool = JSON,
) -> None:
    """Store trajectories as action decision graphs and rebuild the insights they touch.

    Every exploration run is matched against the expert run of its task it is closest to; the
    edit path and common subgraph become the task's insights. Tasks with expert runs are
    linked to their most similar tasks with the workflow their experts share. The whole file
    is checked first: a bad line stores nothing. Adding the same file again stores nothing new.
    """
    from graphmem_neo4j.errors import Refused, without_refused_lines
    from graphmem_neo4j.experience.parsing import parse_file

    existing_file(file)
    refused = Refused(str(file))
    if skip_invalid:
        valid = _valid_trajectories(file, _kind(kind), _format(fmt), refused)
    else:
        trajectories = parse_file(file, kind=_kind(kind), fmt=_format(fmt))
    memory = open_memory()
    with ExitStack() as stack:

        def add_all(runs: list[Trajectory]) -> AddReport:
            return memory.experience.add(
                runs, space=resolve_space(space), on_progress=_Bars(stack, enabled=not as_json)
            )

        if skip_invalid:
            report = without_refused_lines(valid, add_all, refused)
        else:
            report = add_all(trajectories)
    for error in refused.errors:
        typer.echo(f"skipped {error}", err=True)
    if as_json:
        emit_json({**report.as_dict(), **(refused.as_dict() if skip_invalid else {})})
        return
    typer.echo(
        f"space {report.space}: {report.added} trajectories added, {report.replaced} replaced, "
        f"{report.unchanged} unchanged ({report.tasks} tasks, {report.actions} actions, "
        f"{report.edges} edges); {report.matched_pairs} exploration/expert pairs matched, "
        f"{report.similar_edges} cross-task edges; {report.seconds:.1f} s"
    )
    if skip_invalid:
        typer.echo(refused.summary())


def _valid_trajectories(
    file: Path, kind: Kind, fmt: Format, refused: Refused
) -> list[tuple[int, Trajectory]]:
    """--skip-invalid: the trajectories of the lines that pass the checks `parse_file` makes
    (a repeated id is refused on its later line)."""
    from graphmem_neo4j.errors import InputError, collect_valid
    from graphmem_neo4j.experience.parsing import from_alfworld, from_jsonl

    source = str(file)
    first: dict[str, int] = {}

    def parse(line: int, record: Any) -> Trajectory:
        if not isinstance(record, dict):
            raise InputError("expected a JSON object", source=source, line=line)
        style = fmt if fmt != "auto" else ("alfworld" if "conversations" in record else "jsonl")
        reader = from_alfworld if style == "alfworld" else from_jsonl
        trajectory = reader(record, kind=kind, source=source, line=line)
        if first.setdefault(trajectory.id, line) != line:
            raise InputError(
                f"duplicate id {trajectory.id!r} (first on line {first[trajectory.id]})",
                source=source,
                line=line,
                field="id",
            )
        return trajectory

    return collect_valid(file, parse, refused)


def _load(ref: str, kind: Kind, fmt: str, space: str | None) -> Trajectory:
    """A file holding one trajectory, or the id of a stored one."""
    from graphmem_neo4j.errors import InputError
    from graphmem_neo4j.experience.parsing import parse_file

    path = Path(ref)
    if path.is_file():
        found = parse_file(path, kind=_kind(kind), fmt=_format(fmt))
        if len(found) != 1:
            raise InputError(
                f"holds {len(found)} trajectories; diff takes one (or add the file and diff by id)",
                source=ref,
            )
        return found[0]
    return open_memory().experience.trajectory(ref, kind=_kind(kind), space=resolve_space(space))


@app.command("diff")
@handle_errors
def diff(
    exploration: str = typer.Argument(
        ..., help="Exploration run: a file with one trajectory, or a stored trajectory's id"
    ),
    expert: str = typer.Argument(..., help="Expert run: a file or a stored trajectory's id"),
    fmt: str = typer.Option("auto", "--format", help=FORMAT_HELP),
    space: str | None = SPACE,
    as_json: bool = JSON,
) -> None:
    """Match two action decision graphs and print what they share (the common subgraph:
    edges with the same observation between the same actions) and the edit path that turns
    the exploration graph into the expert one (node and edge deletions, insertions and
    relabelings; actions are raw action texts)."""
    from graphmem_neo4j.experience.diff import diff_graphs
    from graphmem_neo4j.experience.graph import trajectory_graph

    run = _load(exploration, "exploration", fmt, space)
    reference = _load(expert, "expert", fmt, space)
    result = diff_graphs(trajectory_graph(run), trajectory_graph(reference))
    if as_json:
        emit_json(result.as_dict())
        return
    _print_diff(result)


def _print_diff(result: GraphDiff) -> None:
    from graphmem_neo4j.experience.insights import short

    typer.echo(
        f"matching: {result.matching.method}, edit cost {result.cost:g}, "
        f"{len(result.common_edges)} common edges, {len(result.edit_path)} edit operations"
    )
    typer.echo("common subgraph (workflow to keep):")
    for edge in result.common_edges:
        typer.echo(f"  {edge.source} -> {edge.target}    [after: {short(edge.observation)}]")
    typer.echo("edit path (exploration -> expert):")
    for op in result.edit_path:
        fields = op.as_dict()
        name = fields.pop("op")
        typer.echo(f"  {name}: " + "; ".join(f"{k}={short(v)}" for k, v in fields.items()))


@app.command("retrieve")
@handle_errors
def retrieve(
    task: str = typer.Argument(..., help="The new task, in words"),
    k: int = typer.Option(3, "-k", "--top-k", help="Tasks to return (by embedding similarity)"),
    t: int = typer.Option(3, "-t", "--top-t", help="Cross-task edges to return around them"),
    space: str | None = SPACE,
    task_type: str | None = typer.Option(
        None,
        "--task-type",
        help="The kind of task, when you know it: only tasks recorded as that kind match "
        "(default: the kind is learnt from the space's resolved tasks)",
    ),
    as_json: bool = JSON,
) -> None:
    """Guidance for a new task: the K most similar stored tasks with their insights
    (corrections and the workflow that worked) and the T best cross-task workflows around
    them, as text an agent can put in its prompt."""
    guidance = open_memory().experience.retrieve(
        task, space=resolve_space(space), k=k, t=t, task_type=task_type
    )
    if as_json:
        emit_json(guidance.as_dict())
        return
    typer.echo(guidance.text)
