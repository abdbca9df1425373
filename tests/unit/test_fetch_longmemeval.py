"""tools/fetch_longmemeval.py: one member out of a zip, reading only its bytes."""

from __future__ import annotations

import importlib.util
import io
import random
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "fetch_longmemeval.py"


def load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fetch_longmemeval", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def archive() -> tuple[bytes, dict[str, bytes]]:
    contents = {
        "pkg/tests/fixtures/wanted.json": b'[{"question": "q"}]' * 3000,
        "pkg/stored.txt": b"stored, not deflated",
        # last before the central directory, where a generous tail read would reach it
        "pkg/tests/fixtures/other.json": random.Random(0).randbytes(3_000),
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, data in contents.items():
            method = zipfile.ZIP_STORED if name.endswith(".txt") else zipfile.ZIP_DEFLATED
            z.writestr(name, data, compress_type=method)
    return buffer.getvalue(), contents


class Ranges:
    """Serves byte ranges of `data` as an HTTP server does, and remembers what was read."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.read: list[range] = []

    def __call__(self, first: int, last: int) -> bytes:
        start = max(len(self.data) + first, 0) if first < 0 else first
        end = len(self.data) if first < 0 else last + 1
        self.read.append(range(start, min(end, len(self.data))))
        return self.data[start:end]


def test_a_member_is_read_without_the_bytes_of_any_other() -> None:
    fetch = load_tool()
    data, contents = archive()
    ranges = Ranges(data)
    assert (
        fetch.member(ranges, "pkg/tests/fixtures/wanted.json")
        == contents["pkg/tests/fixtures/wanted.json"]
    )
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        other = z.getinfo("pkg/tests/fixtures/other.json")
        # its local header, name and compressed data
        other_bytes = range(other.header_offset, other.header_offset + 30 + other.compress_size)
    assert not any(set(r) & set(other_bytes) for r in ranges.read)


def test_a_stored_member_and_a_missing_one() -> None:
    fetch = load_tool()
    data, contents = archive()
    assert fetch.member(Ranges(data), "pkg/stored.txt") == contents["pkg/stored.txt"]
    with pytest.raises(ValueError, match=r"no member pkg/absent\.json in the archive"):
        fetch.member(Ranges(data), "pkg/absent.json")


def test_a_corrupt_member_is_refused() -> None:
    fetch = load_tool()
    data, contents = archive()
    target = contents["pkg/stored.txt"]
    spoiled = data.replace(target, target.upper())
    with pytest.raises(ValueError, match=r"pkg/stored\.txt: size or CRC does not match"):
        fetch.member(Ranges(spoiled), "pkg/stored.txt")


def test_an_archive_comment_is_read_past() -> None:
    fetch = load_tool()
    data, contents = archive()
    buffer = io.BytesIO(data)
    with zipfile.ZipFile(buffer, "a") as z:
        z.comment = b"a comment after the end record's fields" * 10
    assert fetch.member(Ranges(buffer.getvalue()), "pkg/stored.txt") == contents["pkg/stored.txt"]


def test_not_a_zip() -> None:
    fetch = load_tool()
    with pytest.raises(ValueError, match="not a zip archive"):
        fetch.member(Ranges(b"plain text, no archive" * 10), "x")
