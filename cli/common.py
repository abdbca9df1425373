"""What every command shares: settings from flags and environment, error mapping, output."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import typer

if TYPE_CHECKING:
    from rich.progress import Progress

    from graphmem_neo4j.memory import GraphMemory
    from graphmem_neo4j.settings import Settings

JSON = typer.Option(False, "--json", help="Print JSON instead of text")
SPACE = typer.Option(None, "--space", "-s", help="Memory space [env: GRAPHMEM_SPACE]")
SKIP_INVALID = typer.Option(
    False,
    "--skip-invalid",
    help="Leave out the lines that fail the checks (each reported on stderr) instead of "
    "refusing the whole file; the count is printed at the end",
)

P = ParamSpec("P")
R = TypeVar("R")


@dataclass
class CliState:
    overrides: dict[str, Any] = field(default_factory=dict)
    memory: GraphMemory | None = None

    def settings(self) -> Settings:
        from pydantic import ValidationError

        from graphmem_neo4j.errors import ConfigError
        from graphmem_neo4j.settings import Settings

        try:
            return Settings(**self.overrides)
        except ValidationError as e:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in e.errors()
            )
            raise ConfigError(f"bad setting: {problems}") from e


STATE = CliState()


def settings() -> Settings:
    return STATE.settings()


def open_memory() -> GraphMemory:
    """The process's GraphMemory, opened on first use and closed when the command ends."""
    from graphmem_neo4j.memory import GraphMemory

    if STATE.memory is None:
        STATE.memory = GraphMemory(settings())
    return STATE.memory


def space_option_default() -> str:
    return settings().space


def resolve_space(space: str | None) -> str:
    return space if space is not None else settings().space


def handle_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Turn graphmem errors into one line on stderr and an exit code; never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        from graphmem_neo4j.errors import GraphMemError

        try:
            return fn(*args, **kwargs)
        except GraphMemError as e:
            typer.echo(f"error: {e}", err=True)
            raise typer.Exit(e.exit_code) from None
        except KeyboardInterrupt:
            typer.echo("interrupted", err=True)
            raise typer.Exit(130) from None
        finally:
            if STATE.memory is not None:
                STATE.memory.close()
                STATE.memory = None

    return wrapper


def emit_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, default=str))


@contextmanager
def progress(
    description: str, total: int | None, *, enabled: bool = True
) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr (hidden when stderr is not a terminal or when disabled);
    yields an `advance(n)` callback."""
    if not enabled or not sys.stderr.isatty():
        yield lambda n: None
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

    bar: Progress
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(description, total=total)
        yield lambda n: bar.advance(task, n)


def existing_file(path: Path) -> Path:
    from graphmem_neo4j.errors import InputError

    if not path.exists():
        raise InputError("no such file", source=str(path))
    if not path.is_file():
        raise InputError("not a file", source=str(path))
    return path
