"""Every query Neo4j runs must pass Neo4j's own semantic analyser (offline, from npm)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from graphmem_neo4j.queries import queries_for

LINT_DIR = Path(__file__).resolve().parents[1] / "cypher_lint"
WORKERS = 2
"""At most this many node processes; fewer when the cores are busy (see `worker_count`)."""


def worker_count(count: int) -> int:
    """One node process per idle core, up to WORKERS: on saturated cores a second process
    only adds switching (60 queries took 93 s alone and 101-132 s split in two at load 20)."""
    idle = (os.cpu_count() or 1) - int(os.getloadavg()[0] + 0.5)
    return max(1, min(WORKERS, idle, count))


def lint(queries: dict[str, str]) -> dict[str, list[str]]:
    node = shutil.which("node")
    if node is None or not (LINT_DIR / "node_modules" / "@neo4j-cypher").is_dir():
        pytest.fail(
            "the Cypher linter is not installed: run `make setup` (npm ci in tests/cypher_lint)"
        )
    # The analyser takes about half a second a query on one core: the queries are shared out
    # over one node process per idle core, longest first to whichever has the least text.
    shares: list[list[dict[str, str]]] = [[] for _ in range(worker_count(len(queries)))]
    for name, text in sorted(queries.items(), key=lambda item: -len(item[1])):
        min(shares, key=lambda share: sum(len(q["text"]) for q in share)).append(
            {"name": name, "text": text}
        )
    workers = []
    for share in shares:
        with tempfile.TemporaryFile("w+") as stdin:  # the process keeps its own descriptor
            json.dump(share, stdin)
            stdin.seek(0)
            workers.append(
                subprocess.Popen(
                    [node, "lint.mjs"],
                    stdin=stdin,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    cwd=LINT_DIR,
                )
            )
    report: dict[str, list[str]] = {}
    for worker in workers:
        out, err = worker.communicate(timeout=600)
        assert worker.returncode == 0, f"the Cypher linter failed:\n{err}"
        report |= {row["name"]: row["errors"] for row in json.loads(out)}
    assert report.keys() == queries.keys()
    return report


def test_every_neo4j_query_passes_the_analyser() -> None:
    report = lint(queries_for("neo4j"))
    failures = {name: errors for name, errors in report.items() if errors}
    assert not failures, json.dumps(failures, indent=2)
    assert len(report) == len(queries_for("neo4j"))


def test_the_analyser_catches_what_we_rely_on_it_for() -> None:
    """If the linter silently accepted everything, the test above would mean nothing."""
    report = lint(
        {
            "undefined_variable": "MATCH (n:Turn) RETURN m",
            "syntax": "MATCH (n:Turn RETURN n",
            "unknown_procedure": "CALL db.index.vector.queryNodez('i', 5, $v) YIELD node RETURN 1",
            "wrong_arity": "CALL db.index.vector.queryNodes('i', $v) YIELD node RETURN node",
            "falkordb_only_function": "RETURN vecf32($v) AS v",
            "fine": "CALL db.index.vector.queryNodes('i', 5, $v) YIELD node, score RETURN node.id",
        }
    )
    assert report.pop("fine") == []
    assert all(report.values()), report
