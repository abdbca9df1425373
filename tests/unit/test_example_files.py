"""`graphmem examples`: copies the example files the guide reads into a folder, idempotently,
refusing (before writing anything) to overwrite a file that differs unless --force."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphmem_neo4j import example_files
from graphmem_neo4j.cli.main import app

REPO = Path(__file__).resolve().parents[2]
CHECKOUT_EXAMPLES = REPO / "examples"


def checkout_files() -> dict[str, bytes]:
    return {
        p.relative_to(CHECKOUT_EXAMPLES).as_posix(): p.read_bytes()
        for p in CHECKOUT_EXAMPLES.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


def folder_files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["examples", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "user"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def test_copies_every_example_into_examples_by_default(cwd: Path) -> None:
    code, out, err = run()
    assert code == 0, err
    assert folder_files(cwd / "examples") == checkout_files()
    count = len(checkout_files())
    assert f"{count} example files in examples: {count} written" in out
    assert "graphmem ingest examples/conversation.jsonl --space demo" in out


def test_json_lists_what_it_wrote_and_a_second_run_changes_nothing(cwd: Path) -> None:
    code, out, _ = run("mine", "--json")
    assert code == 0
    report = json.loads(out)
    expected = checkout_files()
    assert report["directory"] == "mine"
    assert [f["path"] for f in report["files"]] == sorted(expected)
    assert {f["status"] for f in report["files"]} == {"written"}
    assert all(f["bytes"] == len(expected[f["path"]]) for f in report["files"])

    stamps = {p: p.stat().st_mtime_ns for p in (cwd / "mine").rglob("*") if p.is_file()}
    code, out, _ = run("mine", "--json")
    assert code == 0
    assert {f["status"] for f in json.loads(out)["files"]} == {"unchanged"}
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps  # not rewritten


def test_a_changed_file_is_refused_naming_it_and_nothing_is_written(cwd: Path) -> None:
    assert run()[0] == 0
    changed = cwd / "examples" / "facts.jsonl"
    changed.write_text("my own facts\n")
    missing = cwd / "examples" / "experience" / "expert.jsonl"
    missing.unlink()

    code, out, err = run()
    assert code == 6
    assert err.strip().splitlines() == [
        f"error: {Path('examples', 'facts.jsonl')}: exists and differs from the bundled "
        "example; nothing was copied (--force replaces it)"
    ]
    assert "Traceback" not in out + err
    assert changed.read_text() == "my own facts\n"
    assert not missing.exists()  # the refusal came before any write

    code, out, _ = run("--force", "--json")
    assert code == 0
    statuses = {f["path"]: f["status"] for f in json.loads(out)["files"]}
    assert statuses["facts.jsonl"] == "replaced"
    assert statuses["experience/expert.jsonl"] == "written"
    assert set(statuses.values()) == {"replaced", "written", "unchanged"}
    assert folder_files(cwd / "examples") == checkout_files()


def test_a_file_where_a_folder_goes_is_one_clear_line(cwd: Path) -> None:
    (cwd / "examples").mkdir()
    (cwd / "examples" / "batch").write_text("not a folder")
    code, _, err = run()
    assert code == 6
    assert f"{Path('examples', 'batch')}: exists and is not a folder" in err
    assert len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in (cwd / "examples").iterdir()) == ["batch"]

    (cwd / "plain").write_text("x")
    code, _, err = run("plain", "--force")
    assert code == 6 and "plain: exists and is not a folder" in err


def test_the_checkout_folder_serves_when_the_package_data_is_not_importable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An editable install made before examples/ was package data cannot import it."""

    def not_importable(name: str) -> None:
        raise ModuleNotFoundError(name)

    monkeypatch.setattr(example_files.resources, "files", not_importable)
    assert example_files.bundled_root() == CHECKOUT_EXAMPLES
    names = [name for name, _ in example_files.bundled_files()]
    assert names == sorted(checkout_files())


def test_every_example_file_the_docs_name_is_bundled() -> None:
    """What README.md and docs/ tell a user to run on `examples/...` exists in the copy."""
    bundled = {name for name, _ in example_files.bundled_files()}
    named: set[str] = set()
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        named |= set(re.findall(r"(?<![\w/.])examples/([\w./-]*\w)", page.read_text()))
    assert "conversation.jsonl" in named and "experience/expert.jsonl" in named
    folders = {n for n in named if not Path(n).suffix}
    assert named - folders <= bundled, sorted(named - folders - bundled)
    for folder in folders:
        assert any(b.startswith(f"{folder.rstrip('/')}/") for b in bundled), folder
