"""examples/api_quickstart.py runs as documented (twice: the second run stores nothing new)."""

from __future__ import annotations

import os
import subprocess
import sys

from .conftest import EXAMPLES


def run_example(env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "api_quickstart.py"), "--space", "example"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_quickstart_runs_and_is_idempotent(cli_env: dict[str, str]) -> None:
    first = run_example(cli_env)
    assert "feedback on heat-egg-1: created ['ins-" in first
    assert "## Facts" in first and "Maya lives in Porto" in first
    assert "Maya lives in Lisbon" not in first  # superseded by the later value
    assert ':param {"space": "example", "id": ' in first
    assert "recall calls: 1, LLM tokens: 0" in first
    second = run_example(cli_env)
    assert "feedback on heat-egg-1: created []" in second  # already judged: nothing new
    assert "recall calls: 2" in second
