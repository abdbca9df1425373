"""The README's user guide, run as a new user would: every command of its fenced bash and python
blocks, in order, in one shell session (an `export` or `eval` line's variables reach the lines
after it), from a copy of the clone's layout, against a fresh GRAPHMEM_HOME. From "Start
Neo4j" on the guide runs on the local Neo4j it starts itself (`graphmem neo4j start`, on free
ports here).

A line ending in `# needs: X` (a python block starting with that comment) wants Docker or the
network; it is checked for form (the graphmem command parses, the compose file and make target
exist, the python compiles) and not run. The embedder is the fast hash one: what is checked is
that the commands and files work; the default model is exercised by each layer's own tests."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer.main

from graphmem_neo4j.cli.main import app
from graphmem_neo4j.store import local_neo4j
from graphmem_neo4j.store.embedded import EmbeddedServer
from tests.conftest import free_port, skip_for_want_of

REPO = Path(__file__).resolve().parents[3]
REGION = re.compile(r"<!-- BEGIN user-guide -->(.*?)<!-- END user-guide -->", re.S)
FENCE = re.compile(r"^```(bash|python)\n(.*?)^```", re.S | re.M)
NEEDS = re.compile(r"#\s*needs:\s*([a-z0-9\- ]+?)\s*$")
KNOWN_NEEDS = {"setup", "docker", "the local model"}
KEPT_STATE = ("export ", "eval ")
"""Lines whose variables the session keeps for the lines after them."""
SHELL_STATE = ("cd ", "source ", ". ", "unset ", "alias ")


@dataclass(frozen=True)
class Step:
    kind: str
    text: str
    needs: str | None
    line: int

    def __str__(self) -> str:
        return f"README.md:{self.line}: {self.text.splitlines()[0]}"


def guide_steps() -> list[Step]:
    readme = REPO.joinpath("README.md").read_text(encoding="utf-8")
    region = REGION.search(readme)
    assert region, "README.md has no user-guide region"
    offset = readme[: region.start(1)].count("\n")
    steps: list[Step] = []
    for fence in FENCE.finditer(region.group(1)):
        first = offset + region.group(1)[: fence.start(2)].count("\n") + 1
        body = fence.group(2)
        if fence.group(1) == "python":
            needs = NEEDS.search(body.splitlines()[0])
            steps.append(Step("python", body, needs.group(1) if needs else None, first))
            continue
        for number, raw in enumerate(body.splitlines()):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            needs = NEEDS.search(line)
            steps.append(Step("bash", line, needs.group(1) if needs else None, first + number))
    return steps


STEPS = guide_steps()


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


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """The clone's layout (symlinks), so files the guide writes land in a temporary folder."""
    work = tmp_path / "clone"
    work.mkdir()
    for entry in REPO.iterdir():
        if entry.name not in (".git", ".venv", "build", "dist"):
            (work / entry.name).symlink_to(entry)
    return work


def _with_state(line: str, env: dict[str, str], cwd: Path) -> dict[str, str]:
    """Run an export or eval line; the environment it leaves is the session's from now on."""
    done = subprocess.run(
        ["bash", "-c", f"set -e -o pipefail; {line}; env -0"],
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, f"{line} exited {done.returncode}: {done.stderr.decode()}"
    pairs = (item.split("=", 1) for item in done.stdout.decode().split("\0") if "=" in item)
    return {key: value for key, value in pairs if key not in ("_", "SHLVL", "PWD", "OLDPWD")}


@pytest.mark.neo4j
def test_every_runnable_command_of_the_guide_succeeds(workdir: Path, tmp_path: Path) -> None:
    reason = local_neo4j.unavailable_reason()
    if reason is not None:
        skip_for_want_of(f"the guide starts a local Neo4j: {reason}")
    home = tmp_path / "graphmem-home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env |= {
        "GRAPHMEM_HOME": str(home),
        "GRAPHMEM_NEO4J_PORT": str(free_port()),
        "GRAPHMEM_NEO4J_HTTP_PORT": str(free_port()),
        "GRAPHMEM_EMBEDDER": "hash",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    neo4j_stop = dict(env)
    ran = 0
    try:
        for step in STEPS:
            if step.needs is not None:
                continue
            if step.kind == "bash" and step.text.startswith(KEPT_STATE):
                env = _with_state(step.text, env, workdir)
                ran += 1
                continue
            if step.kind == "bash":
                argv = ["bash", "-c", f"set -o pipefail; {step.text}"]
            else:
                argv = [sys.executable, "-c", step.text]
            done = subprocess.run(
                argv, cwd=workdir, env=env, capture_output=True, text=True, timeout=600
            )
            assert done.returncode == 0, (
                f"{step} exited {done.returncode}\n--- stdout\n{done.stdout[-2000:]}"
                f"\n--- stderr\n{done.stderr[-2000:]}"
            )
            ran += 1
    finally:
        EmbeddedServer(home).stop()
        subprocess.run(  # the guide ends by stopping it; after a failure, this does
            [
                sys.executable,
                "-c",
                "from graphmem_neo4j.cli.main import run; run()",
                "neo4j",
                "stop",
            ],
            env=neo4j_stop,
            capture_output=True,
            timeout=120,
        )
    assert ran == sum(1 for s in STEPS if s.needs is None)
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
