"""The wheel carries its queries and CLI; `graphmem --help` never imports torch."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from graphmem_neo4j.queries import query_files

REPO = Path(__file__).resolve().parents[2]


def test_help_does_not_import_heavy_modules() -> None:
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from graphmem_neo4j.cli.main import app\n"
        "result = CliRunner().invoke(app, ['--help'])\n"
        "assert result.exit_code == 0, result.output\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'neo4j', 'falkordb', 'openai')"
        " if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_wheel_installs_with_its_queries(tmp_path: Path) -> None:
    # setuptools keeps files renamed or deleted since the last build in build/lib
    shutil.rmtree(REPO / "build", ignore_errors=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(REPO),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    (wheel,) = (tmp_path / "dist").glob("graphmem_neo4j-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for _, file_name, _ in query_files():
        assert f"graphmem_neo4j/cypher/{file_name}" in names
    assert "graphmem_neo4j/cli/main.py" in names
    target = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(target)
    # Run from outside the repo with only the unpacked wheel first on the path.
    code = (
        "import graphmem_neo4j, graphmem_neo4j.cli.main as m\n"
        "from graphmem_neo4j.queries import queries_for\n"
        "print(graphmem_neo4j.__file__)\n"
        "print(len(queries_for('neo4j')))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env=env,
    )
    module_file, count = done.stdout.split()
    assert module_file.startswith(str(target))
    assert int(count) == len({n for n, _, d in query_files() if d in (None, "neo4j")})


def test_every_query_folder_is_a_listed_package() -> None:
    """setuptools warns about every data folder it is not told about (and `make setup` would
    print those warnings); a new cypher/<layer>/ folder must be listed in pyproject.toml."""
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    folders = {
        f"graphmem_neo4j.cypher.{p.name}"
        for p in (REPO / "cypher").iterdir()
        if p.is_dir() and not p.name.startswith(("_", "."))
    }
    assert folders <= listed, sorted(folders - listed)
