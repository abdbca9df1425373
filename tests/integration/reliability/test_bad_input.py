"""Bad input through the CLI of every layer: one clear error naming the file, the line and the
field, a non-zero exit, nothing from the file stored; `--skip-invalid` leaves the bad line out,
stores the rest and counts what it skipped."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphmem_neo4j.cli.main import app
from graphmem_neo4j.embedder import HashEmbedder
from graphmem_neo4j.errors import SchemaMismatch
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings

from .helpers import fact_rows, snapshot, task_rows, trajectory_rows, turn_rows

SPACE = "bad-input"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@dataclass(frozen=True)
class Layer:
    name: str
    command: tuple[str, ...]
    label: str
    """The label one line becomes."""
    row: Callable[[int], dict[str, Any]]
    id_field: str
    text_field: str
    time_field: str | None = None

    def __str__(self) -> str:
        return self.name

    def node_id(self, row: dict[str, Any]) -> str:
        return str(row[self.id_field])


def _turn(i: int) -> dict[str, Any]:
    row = turn_rows(1, i + 1)[i]
    return {**row, "session": "s0"}


def _fact(i: int) -> dict[str, Any]:
    row = fact_rows(i + 1, prefix=f"u{i}")[4 * i]
    return row


def _task(i: int) -> dict[str, Any]:
    row = task_rows(i + 1)[i]
    return {k: v for k, v in row.items() if v is not None}


def _trajectory(i: int) -> dict[str, Any]:
    return trajectory_rows(i + 1)[2 * i]


LAYERS = (
    Layer("conversation", ("ingest",), "Turn", _turn, "turn_id", "text", "timestamp"),
    Layer("facts", ("facts", "add"), "MemoryUnit", _fact, "id", "object", "valid_from"),
    Layer("insights", ("tasks", "record"), "Query", _task, "id", "query"),
    Layer("experience", ("experience", "add"), "Trajectory", _trajectory, "id", "task"),
)

# name → how line 2 is spoiled: (layer, good row) → the line's bytes, and the field the error
# must name (None: the line as a whole).
Spoil = Callable[[Layer, dict[str, Any]], tuple[bytes, str | None]]


def _line(row: dict[str, Any]) -> bytes:
    return json.dumps(row).encode()


def _set(field: str, value: Any) -> Spoil:
    def spoil(layer: Layer, row: dict[str, Any]) -> tuple[bytes, str | None]:
        name = getattr(layer, field) if field.endswith("_field") else field
        return _line({**row, name: value}), name

    return spoil


def _missing(layer: Layer, row: dict[str, Any]) -> tuple[bytes, str | None]:
    return _line({k: v for k, v in row.items() if k != layer.text_field}), layer.text_field


def _raw_text(template: bytes) -> Spoil:
    """The text field's JSON value replaced by raw bytes (invalid UTF-8, escapes)."""

    def spoil(layer: Layer, row: dict[str, Any]) -> tuple[bytes, str | None]:
        marker = "@@VALUE@@"
        line = _line({**row, layer.text_field: marker})
        return line.replace(f'"{marker}"'.encode(), template), (
            layer.text_field if template.startswith(b'"') and b"\xff" not in template else None
        )

    return spoil


CASES: dict[str, Spoil] = {
    "malformed JSON": lambda layer, row: (_line(row)[:-7], None),
    "not an object": lambda layer, row: (b"[1, 2, 3]", None),
    "nested too deep": lambda layer, row: (b"[" * 100_000 + b"]" * 100_000, None),
    "missing required field": _missing,
    "text is a number": _set("text_field", 5),
    "text is null": _set("text_field", None),
    "text is a list": _set("text_field", ["a", "b"]),
    "empty text": _set("text_field", "   "),
    "huge text (1.1 MB)": _set("text_field", "x" * 1_100_000),
    "id is a number": _set("id_field", 12),
    "NUL in text": _set("text_field", "before\x00after"),
    "control character in text": _raw_text(b'"bell \\u0007 ring"'),
    "lone surrogate in text": _raw_text(b'"bad \\ud800 half"'),
    "invalid UTF-8": _raw_text(b'"caf\xe9 \xff"'),
}
TIME_CASES: dict[str, Any] = {
    "timestamp does not parse": "next tuesday",
    "timestamp is a number": 1_700_000_000,
    "timestamp out of range": "10000-01-01",
}
# What a layer stores verbatim that another refuses (test_injection checks it is stored as
# given).
ACCEPTED = {
    ("conversation", "control character in text"),
    ("insights", "control character in text"),
    ("experience", "control character in text"),
}


def _write(path: Path, *lines: bytes) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def _seed(layer: Layer, tmp_path: Path) -> None:
    """Store one good line first, so that "nothing stored" is a visible property."""
    first = _write(tmp_path / "first.jsonl", _line(layer.row(0)))
    code, _, err = run(*layer.command, str(first), "--space", SPACE)
    assert code == 0, err


def _graph(cli_settings: dict[str, str]) -> Any:
    settings = Settings(
        home=Path(cli_settings["GRAPHMEM_HOME"]),
        database=cli_settings["GRAPHMEM_DATABASE"],
        embedder="hash",
    )
    with GraphMemory(settings) as memory:
        return snapshot(memory, SPACE)


def _cases() -> list[tuple[Layer, str, Spoil]]:
    """Every (layer, case) that applies: time cases where a layer has a time field, and not
    the texts a layer stores verbatim (ACCEPTED)."""
    found = []
    for layer in LAYERS:
        for name, spoil in CASES.items():
            if (layer.name, name) not in ACCEPTED:
                found.append((layer, name, spoil))
        for name, value in TIME_CASES.items() if layer.time_field else ():
            found.append((layer, name, _set("time_field", value)))
    return found


@pytest.mark.parametrize(
    ("layer", "case", "spoil"), _cases(), ids=[f"{layer}-{name}" for layer, name, _ in _cases()]
)
def test_a_bad_line_is_one_clear_error_and_nothing_is_stored(
    layer: Layer, case: str, spoil: Spoil, cli_settings: dict[str, str], tmp_path: Path
) -> None:
    _seed(layer, tmp_path)
    before = _graph(cli_settings)
    good, bad = layer.row(1), layer.row(2)
    line, field = spoil(layer, bad)
    path = _write(tmp_path / "input.jsonl", _line(good), line)

    code, out, err = run(*layer.command, str(path), "--space", SPACE)
    assert code == 6, (out, err)
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}:2"), err
    if field is not None:
        assert f"field '{field}" in lines[0], err
    assert len(lines[0]) < 400  # a huge value is not echoed back
    after = _graph(cli_settings)
    assert after.shape() == before.shape()

    code, out, err = run(*layer.command, str(path), "--space", SPACE, "--skip-invalid", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["skipped"] == 1 and report["invalid"][0]["line"] == 2, report
    assert f"skipped {path}:2" in err
    stored = _graph(cli_settings)
    new = stored.label_counts()[layer.label] - after.label_counts()[layer.label]
    assert new == 1, f"{case}: {new} new {layer.label} nodes"


@pytest.mark.parametrize("layer_", LAYERS, ids=str)
def test_skip_invalid_counts_every_skipped_line_in_text_mode(
    layer_: Layer, cli_settings: dict[str, str], tmp_path: Path
) -> None:
    rows = [_line(layer_.row(i)) for i in range(4)]
    lines = [rows[0], b"{oops", rows[1], b"", b'"a string"', rows[2], b"[]", rows[3]]
    path = _write(tmp_path / "mixed.jsonl", *lines)
    code, out, err = run(*layer_.command, str(path), "--space", SPACE, "--skip-invalid")
    assert code == 0, err
    assert f"skipped 3 invalid line(s) of {path}" in out
    assert [line.split(":")[1] for line in err.strip().splitlines()] == ["2", "5", "7"]
    assert _graph(cli_settings).label_counts()[layer_.label] == 4

    # every line bad: nothing to do is an error, naming the first problem
    path = _write(tmp_path / "all-bad.jsonl", b"{oops", b"[]")
    code, out, err = run(*layer_.command, str(path), "--space", SPACE, "--skip-invalid")
    assert code == 6 and "no valid line (2 skipped" in err and f"{path}:1" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("ingest", "{conversation}", "--format", "xml"), "unknown format 'xml'"),
        (("experience", "add", "{experience}", "--format", "xml"), "unknown format 'xml'"),
        (("experience", "add", "{experience}", "--kind", "guru"), "unknown kind 'guru'"),
        (("ingest", "{conversation}", "--space", "two words"), "invalid space name"),
        (("tasks", "record", "{insights}", "--space", "x'}) DETACH DELETE n //"), "invalid space"),
        (("facts", "add", "{facts}", "--space", "-leading-dash"), "invalid space name"),
        (("experience", "add", "{experience}", "--space", "a" * 65), "invalid space name"),
        (("ingest", "/no/such/file.jsonl"), "/no/such/file.jsonl: no such file"),
        (("ingest", "{conversation}", "--format", "locomo", "--skip-invalid"), "jsonl files only"),
        (("facts", "current", "--subject", "Alice", "--as-of", "someday"), "not an ISO-8601"),
        (("search", "   "), "must not be empty"),
        (("search", "q", "-k", "0"), "-k"),
    ],
    ids=lambda v: v if isinstance(v, str) else " ".join(v[:3]),
)
def test_bad_arguments_are_one_clear_error(
    args: tuple[str, ...], message: str, cli_settings: dict[str, str], tmp_path: Path
) -> None:
    files = {
        layer.name: str(_write(tmp_path / f"{layer}.jsonl", _line(layer.row(0))))
        for layer in LAYERS
    }
    # the default space exists, so read commands reach their argument checks
    assert run("ingest", files["conversation"], "--space", "default")[0] == 0
    for name, path in files.items():
        args = tuple(a.replace("{" + name + "}", path) for a in args)
    code, out, err = run(*args)
    assert code in (2, 6), (out, err)  # 2: Typer's own usage errors (a boxed message)
    assert "Traceback" not in out + err
    assert code == 2 or len(err.strip().splitlines()) == 1, err
    assert message in err, err


@pytest.mark.parametrize(
    "args",
    [
        ("search", "anything"),
        ("facts", "current", "--subject", "Alice"),
        ("facts", "ask", "Where does Alice live?"),
        ("insights", "retrieve", "heat an egg"),
        ("insights", "list"),
        ("experience", "retrieve", "put a mug in the sink"),
        ("stats",),
        ("export", "-"),
        ("forget",),
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_an_unknown_space_is_exit_5_for_every_read(
    args: tuple[str, ...], cli_settings: dict[str, str], tmp_path: Path
) -> None:
    file = _write(tmp_path / "ok.jsonl", _line(_turn(0)))
    assert run("ingest", str(file), "--space", "known")[0] == 0
    code, out, err = run(*args, "--space", "nobody-here")
    assert code == 5, (out, err)
    assert err.strip().splitlines() == ["error: unknown space 'nobody-here'; known spaces: known"]


def test_a_different_embedding_dimension_is_refused_before_any_write(
    cli_settings: dict[str, str], tmp_path: Path
) -> None:
    file = _write(tmp_path / "ok.jsonl", _line(_turn(0)))
    assert run("ingest", str(file), "--space", SPACE)[0] == 0
    settings = Settings(
        home=Path(cli_settings["GRAPHMEM_HOME"]),
        database=cli_settings["GRAPHMEM_DATABASE"],
    )
    before = _graph(cli_settings)
    from graphmem_neo4j.conversation.readers import parse_turn_row

    turn = parse_turn_row(_turn(5), source="api", line=None)
    with GraphMemory(settings, embedder=HashEmbedder(64)) as memory:
        with pytest.raises(SchemaMismatch, match="256"):
            memory.conversation.add_turns([turn], space=SPACE)
        with pytest.raises(SchemaMismatch):
            memory.insights.retrieve("anything", space=SPACE)
    assert _graph(cli_settings).shape() == before.shape()

    # an export made with another embedder is refused by `graphmem import`
    dump = tmp_path / "dump.jsonl"
    assert run("export", str(dump), "--space", SPACE)[0] == 0
    lines = dump.read_text().splitlines()
    header = json.loads(lines[0])
    header.update(embedding_dimension=384, embedding_model="all-MiniLM-L6-v2")
    dump.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    code, _, err = run("import", str(dump), "--space", "elsewhere")
    assert code == 4 and "384-d" in err and len(err.strip().splitlines()) == 1, err
    code, _, err = run("stats", "--space", "elsewhere")
    assert code == 5
