"""The user guide (docs/guide.md) as steps a test can run: every command of its fenced bash and
python blocks, in order, as one shell session would run them (an `export` or `eval` line's
variables reach the lines after it), from a copy of the clone's layout. Used by the guide test
(tests/integration/browser/test_readme_commands.py) and by the llm suite, which runs the same
guide with the local model as the LLM."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GUIDE = Path("docs", "guide.md")
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
        return f"{GUIDE}:{self.line}: {self.text.splitlines()[0]}"


def guide_steps() -> list[Step]:
    guide = REPO.joinpath(GUIDE).read_text(encoding="utf-8")
    region = REGION.search(guide)
    assert region, f"{GUIDE} has no user-guide region"
    offset = guide[: region.start(1)].count("\n")
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


def guide_env(home: Path, **extra: str) -> dict[str, str]:
    """A new user's shell for the guide: no GRAPHMEM_* of the developer's, a fresh home, free
    Neo4j ports, the fast hash embedder, this venv's `graphmem` first on PATH."""
    from tests.conftest import free_port

    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    return (
        env
        | extra
        | {
            "GRAPHMEM_HOME": str(home),
            "GRAPHMEM_NEO4J_PORT": str(free_port()),
            "GRAPHMEM_NEO4J_HTTP_PORT": str(free_port()),
            "GRAPHMEM_EMBEDDER": "hash",
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        }
    )


def clone_layout(tmp_path: Path) -> Path:
    """The clone's layout (symlinks), so files the guide writes land in a temporary folder."""
    work = tmp_path / "clone"
    work.mkdir()
    for entry in REPO.iterdir():
        if entry.name not in (".git", ".venv", "build", "dist"):
            (work / entry.name).symlink_to(entry)
    return work


def with_state(line: str, env: dict[str, str], cwd: Path) -> dict[str, str]:
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


def run_steps(
    steps: Iterable[Step], env: dict[str, str], workdir: Path, *, timeout: float = 600
) -> tuple[int, dict[str, str]]:
    """Run the steps in order, failing on the first that exits non-zero; the number run and the
    session's environment at the end."""
    ran = 0
    for step in steps:
        if step.kind == "bash" and step.text.startswith(KEPT_STATE):
            env = with_state(step.text, env, workdir)
            ran += 1
            continue
        if step.kind == "bash":
            argv = ["bash", "-c", f"set -o pipefail; {step.text}"]
        else:
            argv = [sys.executable, "-c", step.text]
        done = subprocess.run(
            argv, cwd=workdir, env=env, capture_output=True, text=True, timeout=timeout
        )
        assert done.returncode == 0, (
            f"{step} exited {done.returncode}\n--- stdout\n{done.stdout[-2000:]}"
            f"\n--- stderr\n{done.stderr[-2000:]}"
        )
        ran += 1
    return ran, env


def graphmem_cli(
    env: dict[str, str], *args: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`graphmem ARGS` in the session's environment, as the guide's own lines run it."""
    return subprocess.run(
        [sys.executable, "-c", "from graphmem_neo4j.cli.main import run; run()", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
