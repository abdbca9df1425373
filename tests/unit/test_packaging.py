"""The wheel carries its queries, CLI and example files; `graphmem --help` never imports
torch."""

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
    examples = {
        p.relative_to(REPO / "examples").as_posix()
        for p in (REPO / "examples").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }
    assert "conversation.jsonl" in examples
    assert {f"graphmem_neo4j/examples/{e}" for e in examples} <= names
    target = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(target)
    # Run from outside the repo with only the unpacked wheel first on the path.
    code = (
        "import graphmem_neo4j, graphmem_neo4j.cli.main as m\n"
        "from graphmem_neo4j.queries import queries_for\n"
        "print(graphmem_neo4j.__file__)\n"
        "print(len(queries_for('neo4j')))\n"
        "from graphmem_neo4j.example_files import bundled_files, bundled_root\n"
        "print(bundled_root())\n"
        "print(','.join(name for name, _ in bundled_files()))\n"
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
    module_file, count, examples_root, example_names = done.stdout.split()
    assert module_file.startswith(str(target))
    assert int(count) == len({n for n, _, d in query_files() if d in (None, "neo4j")})
    # `graphmem examples` reads the wheel's copy, and finds every file
    assert str(target / "graphmem_neo4j" / "examples") in examples_root
    assert example_names.split(",") == sorted(examples)


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


def test_every_examples_folder_is_a_listed_package() -> None:
    """The same for examples/ and its sub-folders: a package not listed is not in the wheel,
    and `graphmem examples` would not copy its files."""
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    root = REPO / "examples"
    folders = {
        ".".join(("graphmem_neo4j.examples", *p.relative_to(root).parts)).rstrip(".")
        for p in [root, *root.rglob("*")]
        if p.is_dir() and not any(part.startswith(("_", ".")) for part in p.parts)
    }
    assert "graphmem_neo4j.examples.experience" in folders
    assert folders <= listed, sorted(folders - listed)
