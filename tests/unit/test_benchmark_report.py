"""docs/benchmarks.md is rendered from the benchmarks' JSON (benchmarks/report.py), and every
benchmark script can write that JSON (`--json-out`, benchmarks/figures.py)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.benchmark_module import BENCHMARKS, load_benchmark

# the renderer itself and a data generator; helper modules have no __main__
NOT_BENCHMARKS = {"report.py", "scienceworld_data.py", "bfcl_data.py"}


def scripts() -> list[Path]:
    return [
        path
        for path in sorted(BENCHMARKS.glob("*.py"))
        if path.name not in NOT_BENCHMARKS and "__main__" in path.read_text(encoding="utf-8")
    ]


@pytest.fixture(scope="module")
def report() -> ModuleType:
    return load_benchmark("report")


@pytest.fixture(scope="module")
def figures() -> ModuleType:
    return load_benchmark("figures")


def write_run(figures: ModuleType, folder: Path, name: str, values: dict[str, float]) -> Path:
    run = figures.Figures(name, command=f"python benchmarks/{name}.py --x 1")
    for key, value in values.items():
        run.add(key, value, "nodes/s" if key == "batched node writes" else "")
    path = folder / f"{name}.json"
    run.write(path)
    return path


def test_every_benchmark_script_registers_json_out_and_writes_it() -> None:
    found = scripts()
    assert len(found) >= 20
    for path in found:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = {
            node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
        }
        writes = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and getattr(node.func, "attr", "") == "write"
            and any("json_out" in ast.unparse(arg) for arg in node.args)
        ]
        assert "add_json_out" in calls, f"{path.name}: no --json-out option"
        assert writes, f"{path.name}: never writes its figures to args.json_out"


@pytest.mark.parametrize("name", ["recall_tokens", "conversation_scale"])
def test_a_benchmark_help_lists_json_out(name: str) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / f"{name}.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "--json-out PATH" in done.stdout


def test_the_json_names_the_command_without_json_out_and_the_load(
    figures: ModuleType, tmp_path: Path
) -> None:
    line = figures.command_line(["benchmarks/foundation.py", "--nodes", "5", "--json-out", "x"])
    assert line == "python benchmarks/foundation.py --nodes 5"
    assert figures.command_line(["/r/benchmarks/a.py", "--json-out=x", "--k", "a b"]) == (
        "python benchmarks/a.py --k 'a b'"
    )
    run = json.loads(write_run(figures, tmp_path, "foundation", {"w": 1.23456}).read_text())
    assert run["format"] == figures.FORMAT
    assert run["figures"] == [{"name": "w", "value": 1.2346, "unit": ""}]
    assert len(run["load_start"]) == len(run["load_end"]) == 3
    assert run["date"].startswith("20")


def test_report_renders_one_row_per_figure_with_its_target(
    report: ModuleType, figures: ModuleType, tmp_path: Path
) -> None:
    write_run(
        figures,
        tmp_path,
        "foundation",
        {"batched node writes": 20202.4, "graphmem --help, median": 612.0, "odd | name": 0.5},
    )
    write_run(figures, tmp_path, "soak_crash", {"acknowledged writes lost": 0})
    text = report.render(report.load_runs(tmp_path))
    table = [line for line in text.splitlines() if line.startswith("| ")]
    assert table[0] == "| figure | target | value | command | date (UTC) | load |"
    rows = table[1:]
    assert len(rows) == 4
    first = rows[0].split(" | ")
    assert first[0] == "| foundation: batched node writes"
    assert first[1] == "≥ 5,000 nodes/s"
    assert first[2] == "20,202 nodes/s ✓"
    assert first[3] == "`python benchmarks/foundation.py --x 1`"
    assert "→" in first[5]
    assert rows[1].split(" | ")[1:4] == ["≤ 500 ms", "612 ✗", "″"]
    assert "odd \\| name | report | 0.500 |" in rows[2]
    assert rows[3].startswith("| soak_crash: acknowledged writes lost | = 0 | 0 ✓ |")
    # a benchmark without JSON is listed with its command, never given a value
    assert "- `locomo`: `python benchmarks/locomo.py" in text
    assert "- `foundation`" not in text


def test_report_refuses_a_file_that_is_not_a_benchmark_result(
    report: ModuleType, tmp_path: Path
) -> None:
    (tmp_path / "x.json").write_text('{"figures": []}')
    with pytest.raises(SystemExit, match=r"x\.json: not a benchmark result"):
        report.load_runs(tmp_path)
    (tmp_path / "x.json").write_text("{")
    with pytest.raises(SystemExit, match=r"x\.json: not JSON"):
        report.load_runs(tmp_path)


def test_every_target_names_a_known_benchmark(report: ModuleType) -> None:
    assert {name for name, _ in report.TARGETS} <= set(report.COMMANDS)
    assert set(report.COMMANDS) == {path.stem for path in scripts()}


def test_the_readme_headlines_come_from_the_runs(
    report: ModuleType, figures: ModuleType, tmp_path: Path
) -> None:
    write_run(figures, tmp_path, "soak_crash", {"acknowledged writes lost": 0})
    readme = tmp_path / "README.md"
    readme.write_text(
        "intro\n<!-- BEGIN headline figures -->\nstale\n<!-- END headline figures -->\nend\n"
    )
    runs = report.load_runs(tmp_path)
    load = runs["soak_crash"]["load_start"][0], runs["soak_crash"]["load_end"][0]
    report.update_readme(readme, runs)
    assert readme.read_text() == (
        "intro\n<!-- BEGIN headline figures -->\n"
        "- soak_crash: acknowledged writes lost: **0** (target = 0), "
        f"`python benchmarks/soak_crash.py --x 1` (load {load[0]:.1f} → {load[1]:.1f})\n"
        "<!-- END headline figures -->\nend\n"
    )
    readme.write_text("no markers\n")
    with pytest.raises(SystemExit, match="no <!-- BEGIN/END headline figures --> markers"):
        report.update_readme(readme, {})


def test_the_committed_readme_and_page_match_the_committed_results(report: ModuleType) -> None:
    """README.md's headline block and docs/benchmarks.md are what `make bench-report` renders
    from benchmarks/results/: a hand-edited figure fails here."""
    runs = report.load_runs(BENCHMARKS / "results")
    assert (BENCHMARKS.parent / "docs" / "benchmarks.md").read_text() == report.render(runs)
    readme = (BENCHMARKS.parent / "README.md").read_text()
    block = report.HEADLINE_REGION.search(readme)
    assert block is not None
    assert block.group(0) == (block.group(1) + report.headlines(runs) + block.group(2))
