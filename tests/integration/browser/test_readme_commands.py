"""The user guide (docs/guide.md), run as a new user would: every command of its fenced bash and
python blocks, in order, in one shell session (an `export` or `eval` line's variables reach the
lines after it), from a copy of the clone's layout, against a fresh GRAPHMEM_HOME. From "Start
Neo4j" on the guide runs on the local Neo4j it starts itself (`graphmem neo4j start`, on free
ports here).

A line ending in `# needs: X` (a python block starting with that comment) wants Docker or the
network; it is checked for form (the graphmem command parses, the compose file and make target
exist, the python compiles) and not run. The embedder is the fast hash one: what is checked is
that the commands and files work; the default model is exercised by each layer's own tests."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer.main

from graphmem_neo4j.cli.main import app
from graphmem_neo4j.store import local_neo4j
from graphmem_neo4j.store.embedded import EmbeddedServer
from tests.conftest import skip_for_want_of
from tests.readme_guide import (
    KNOWN_NEEDS,
    REPO,
    SHELL_STATE,
    STEPS,
    Step,
    clone_layout,
    graphmem_cli,
    guide_env,
    run_steps,
)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    return clone_layout(tmp_path)


def test_the_guide_has_a_runnable_path_and_only_known_needs() -> None:
    runnable = [s for s in STEPS if s.needs is None]
    assert len(runnable) >= 15
    assert {s.needs for s in STEPS if s.needs} <= KNOWN_NEEDS
    # the form check below is parametrized over these: none would make it one skipped test
    assert any(s.needs for s in STEPS)
    for step in runnable:
        assert not step.text.startswith(SHELL_STATE), (
            f"{step}: a runnable line may change the shell's state only by export or eval"
        )


@pytest.mark.neo4j
def test_every_runnable_command_of_the_guide_succeeds(workdir: Path, tmp_path: Path) -> None:
    reason = local_neo4j.unavailable_reason()
    if reason is not None:
        skip_for_want_of(f"the guide starts a local Neo4j: {reason}")
    home = tmp_path / "graphmem-home"
    env = guide_env(home)
    neo4j_stop = dict(env)
    runnable = [step for step in STEPS if step.needs is None]
    try:
        ran, _ = run_steps(runnable, env, workdir)
    finally:
        EmbeddedServer(home).stop()
        graphmem_cli(neo4j_stop, "neo4j", "stop")  # the guide ends so; after a failure, this does
    assert ran == len(runnable)
    assert (workdir / "demo-dump.jsonl").stat().st_size > 0
    assert (workdir / "graphmem.grass").read_text() == (
        REPO / "docker" / "browser-style.grass"
    ).read_text()


def check_graphmem(args: list[str]) -> None:
    """Parse a graphmem command line the way the CLI would (unknown commands, options or
    missing arguments raise the CLI's usage errors), without running it."""
    command: Any = typer.main.get_command(app)
    ctx = command.make_context("graphmem", args[1:])
    while hasattr(command, "resolve_command"):  # a group: descend to the subcommand
        name, command, rest = command.resolve_command(ctx, [*ctx._protected_args, *ctx.args])
        ctx = command.make_context(name, rest, parent=ctx)


def check_form(step: Step) -> None:
    if step.kind == "python":
        compile(step.text, str(step), "exec")
        return
    code = step.text.split("#", 1)[0]
    for part in code.split("&&"):
        args = shlex.split(part)
        while args and re.fullmatch(r"[A-Z_]+=.*", args[0]):
            args = args[1:]  # VAR=value prefixes
        if not args:
            continue
        if args[0] == "graphmem":
            check_graphmem(args)
        elif args[0] == "docker":
            assert (REPO / args[args.index("-f") + 1]).is_file()
        elif args[0] == "make":
            assert re.search(rf"^{args[1]}:", (REPO / "Makefile").read_text(), re.M)
        else:
            assert args[0] in ("export", ".", "eval"), f"{step}: unknown command {args[0]}"


@pytest.mark.parametrize("step", [s for s in STEPS if s.needs], ids=str)
def test_commands_that_need_a_service_are_well_formed(step: Step) -> None:
    """Not run here (they want Docker or the network), but they must parse: a renamed
    command, option or make target fails this test."""
    check_form(step)


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["import", "x.jsonl", "--no-such-option"], "No such option"),
        (["no-such-command"], "No such command"),
        (["facts", "add"], "Missing parameter"),
        (["--uri"], "requires an argument"),
    ],
)
def test_the_form_check_catches_a_bad_command(args: list[str], error: str) -> None:
    check_graphmem(["graphmem", "facts", "add", "x.jsonl", "--space", "s"])
    with pytest.raises(Exception, match=error):
        check_graphmem(["graphmem", *args])


def readme_commands() -> list[str]:
    """Every command line of README.md's bash blocks (the tour, engines): a short page that the
    guide test does not run, so its commands are at least held to the CLI's current form."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    lines = []
    for block in re.findall(r"^```bash\n(.*?)^```", readme, re.S | re.M):
        for line in block.splitlines():
            lines += [part.strip() for part in line.split("#", 1)[0].split("&&") if part.strip()]
    return lines


def test_the_readme_starts_with_the_two_commands_and_its_commands_parse() -> None:
    commands = readme_commands()
    assert commands[:2] == ["make demo", "make test"]
    checked = 0
    for line in commands:
        args = shlex.split(line)
        while args and re.fullmatch(r"[A-Z_]+=.*", args[0]):
            args = args[1:]  # VAR=value prefixes
        if args[0] == "graphmem":
            check_graphmem(args)
            checked += 1
        elif args[0] == "make":
            assert re.search(rf"^{args[1]}:", (REPO / "Makefile").read_text(), re.M)
        else:
            assert args[0] == "eval", f"README.md: unknown command {line}"
    assert checked >= 10
