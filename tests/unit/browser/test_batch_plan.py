"""The batch recipe's planning: which files, which spaces, what the done list skips."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest


def write(path: Path, lines: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "in"
    write(root / "b.jsonl", [{"n": 1}, {"n": 2}])
    write(root / "a.jsonl", [{"n": 3}])
    write(root / "team x" / "c.jsonl", [{"n": 4}])
    (root / "notes.txt").write_text("not input\n")
    return root


def test_discovery_is_recursive_sorted_and_filtered(batch: ModuleType, folder: Path) -> None:
    names = [p.relative_to(folder).as_posix() for p in batch.discover(folder)]
    assert names == ["a.jsonl", "b.jsonl", "team x/c.jsonl"]
    with pytest.raises(SystemExit):
        batch.discover(folder / "missing")


def test_digest_counts_non_blank_lines_and_hashes_content(batch: ModuleType, folder: Path) -> None:
    sha, lines = batch.digest(folder / "b.jsonl")
    assert lines == 2
    (folder / "b.jsonl").write_text('{"n": 1}\n{"n": 20}\n')
    assert batch.digest(folder / "b.jsonl")[0] != sha


@pytest.mark.parametrize(
    ("name", "space"),
    [
        ("conv-26.jsonl", "conv-26"),
        ("team x/2024 05.jsonl", "team-x-2024-05"),
        ("__.jsonl", "batch"),
        ("é.jsonl", "batch"),
        ("x" * 80 + ".jsonl", "x" * 64),
    ],
)
def test_space_per_file_names_are_valid(batch: ModuleType, name: str, space: str) -> None:
    from graphmem_neo4j.spaces import validate_space

    assert batch.space_for_file(name) == space
    validate_space(space)


def test_the_done_list_skips_only_unchanged_files_of_the_same_space_and_layer(
    batch: ModuleType, folder: Path, tmp_path: Path
) -> None:
    done = batch.DoneList(tmp_path / "done.jsonl")
    files = batch.discover(folder)
    todo, skipped = batch.plan(
        folder, files, layer="conversation", kind="expert", space="s", done=done
    )
    assert [j.name for j in todo] == ["a.jsonl", "b.jsonl", "team x/c.jsonl"] and skipped == []
    assert todo[1].items == 2 and todo[1].space == "s"
    for job in todo[:2]:
        done.record(job, batch.Outcome(job.name, "done", job.items, job.items, 0.1))
    # A crash can tear the last line: it is ignored, not fatal.
    with (tmp_path / "done.jsonl").open("a") as f:
        f.write('{"file": "team x/c.jso')
    reloaded = batch.DoneList(tmp_path / "done.jsonl")
    todo, skipped = batch.plan(
        folder, files, layer="conversation", kind="expert", space="s", done=reloaded
    )
    assert [j.name for j in todo] == ["team x/c.jsonl"]
    assert [j.name for j in skipped] == ["a.jsonl", "b.jsonl"]
    # Another space, another layer or changed content is not done.
    other, _ = batch.plan(
        folder, files, layer="conversation", kind="expert", space="t", done=reloaded
    )
    assert len(other) == 3
    other, _ = batch.plan(folder, files, layer="facts", kind="expert", space="s", done=reloaded)
    assert len(other) == 3
    write(folder / "a.jsonl", [{"n": 30}])
    todo, _ = batch.plan(
        folder, files, layer="conversation", kind="expert", space="s", done=reloaded
    )
    assert [j.name for j in todo] == ["a.jsonl", "team x/c.jsonl"]


def test_space_per_file_plans_one_space_per_file(
    batch: ModuleType, folder: Path, tmp_path: Path
) -> None:
    todo, _ = batch.plan(
        folder,
        batch.discover(folder),
        layer="facts",
        kind="expert",
        space=None,
        done=batch.DoneList(tmp_path / "d.jsonl"),
    )
    assert [j.space for j in todo] == ["a", "b", "team-x-c"]


def test_order_sensitive_layers_run_serially_in_one_space(batch: ModuleType) -> None:
    assert batch.effective_workers(4, "conversation", True) == 4
    assert batch.effective_workers(4, "facts", True) == 1
    assert batch.effective_workers(4, "experience", True) == 1
    assert batch.effective_workers(4, "facts", False) == 4
    assert batch.effective_workers(0, "conversation", True) == 1


def test_the_default_done_list_lives_under_the_graphmem_home(
    batch: ModuleType, tmp_path: Path
) -> None:
    one = batch.default_done_path(tmp_path / "home", tmp_path / "in", "s", "conversation")
    assert one.parent == tmp_path / "home" / "batch"
    assert one != batch.default_done_path(
        tmp_path / "home", tmp_path / "other", "s", "conversation"
    )
    assert one != batch.default_done_path(tmp_path / "home", tmp_path / "in", None, "conversation")
