"""LangGraph is an optional extra: nothing outside graphmem_neo4j/integrations imports it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_core_and_the_cli_do_not_import_langgraph() -> None:
    code = (
        "import sys, graphmem_neo4j, graphmem_neo4j.memory, graphmem_neo4j.serve, "
        "graphmem_neo4j.keys, graphmem_neo4j.items.service, graphmem_neo4j.cli.main; "
        "roots = ('langgraph', 'langchain_core', 'langmem'); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in roots))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert out.stdout.strip() == "[]"


def test_only_the_integration_names_langgraph() -> None:
    users = [
        p.relative_to(REPO).as_posix()
        for p in (REPO / "graphmem_neo4j").rglob("*.py")
        if "import langgraph" in p.read_text() or "from langgraph" in p.read_text()
    ]
    assert users == ["graphmem_neo4j/integrations/langgraph.py"]
