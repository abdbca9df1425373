"""The shape of the package (docs/architecture.md): no service reaches into the facade, and
no module grows past about 400 lines without saying at its top why it is one module."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "graphmem_neo4j"
FACADE = "graphmem_neo4j.memory"
MAX_LINES = 400
REASON = "One module because"

# Modules that may import the facade, and why.
FACADE_USERS = {
    "graphmem_neo4j/__init__.py": "exports GraphMemory, the package's public name",
    "graphmem_neo4j/mcp_server.py": "serves the facade's one-call API as MCP tools",
    "graphmem_neo4j/serve.py": "serves mcp_server.py's tools over HTTP",
    "graphmem_neo4j/integrations/langgraph.py": "adapts the facade to LangGraph's BaseStore",
}
# Not yet narrowed (issue 17, part 1): none left; a new entry needs a reason.
PENDING_FACADE_USERS: dict[str, str] = {}
# Over MAX_LINES without a reason at their top, left to another pass.
PENDING_LONG: dict[str, str] = {}


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def name_of(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def imported(path: Path) -> set[str]:
    """Absolute names of every module `path` imports (TYPE_CHECKING imports included: a
    service typed against the facade still depends on it)."""
    package = ".".join(path.relative_to(REPO).with_suffix("").parts)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            module = node.module or ""
            full = module if node.level == 0 else ".".join(p for p in (base, module) if p)
            found.add(full)
            found |= {f"{full}.{alias.name}" for alias in node.names}
    return found


def test_imported_resolves_relative_imports() -> None:
    here = PACKAGE / "facts" / "service.py"
    names = imported(here)
    assert "graphmem_neo4j.deps" in names and "graphmem_neo4j.facts.reader" in names


def test_no_service_imports_the_facade() -> None:
    allowed = FACADE_USERS.keys() | PENDING_FACADE_USERS.keys()
    offenders = [
        name_of(path)
        for path in modules()
        if name_of(path) != "graphmem_neo4j/memory.py"
        and name_of(path) not in allowed
        and any(n == FACADE or n.startswith(FACADE + ".") for n in imported(path))
    ]
    assert offenders == [], "these modules import GraphMemory; give them deps.Parts instead"


def test_the_pending_lists_are_still_true() -> None:
    """An entry that no longer applies must go, so the lists only shrink."""
    for name in PENDING_FACADE_USERS:
        assert FACADE in imported(REPO / name) or any(
            n.startswith(FACADE) for n in imported(REPO / name)
        ), f"{name} no longer imports the facade: remove it from PENDING_FACADE_USERS"
    for name in PENDING_LONG:
        lines = len((REPO / name).read_text(encoding="utf-8").splitlines())
        assert lines > MAX_LINES, f"{name} is short now: remove it from PENDING_LONG"


def test_long_modules_say_why_at_their_top() -> None:
    offenders = []
    for path in modules():
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) <= MAX_LINES or name_of(path) in PENDING_LONG:
            continue
        doc = ast.get_docstring(ast.parse(text)) or ""
        if REASON not in doc:
            offenders.append(f"{name_of(path)} ({len(text.splitlines())} lines)")
    assert offenders == [], (
        f"split these by concern, or write '{REASON} ...' in their module docstring"
    )
