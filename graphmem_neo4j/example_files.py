"""The example files the guide's commands read, and copying them into a user's folder.

They are `examples/` of a checkout, installed as package data (`graphmem_neo4j.examples`), so
a `pip install` has them too; `graphmem examples DIR` copies them out. A file already in DIR
with the same bytes is left alone, one with other bytes is refused unless `force`: the check
covers every file before the first is written, so a refusal changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Literal

from .errors import GraphMemError, InputError

PACKAGED = "graphmem_neo4j.examples"
CHECKOUT = Path(__file__).resolve().parents[1] / "examples"
"""A source checkout's folder: used when the package data is not importable (an editable
install made before the examples were package data)."""
MARKER = "conversation.jsonl"
"""A file every copy of the examples has: where it is missing, the folder is not them."""
SKIPPED_DIRS = frozenset({"__pycache__"})
SKIPPED_SUFFIXES = (".pyc", ".pyo")

Status = Literal["written", "unchanged", "replaced"]


@dataclass(frozen=True)
class Copied:
    path: str
    """Relative to the target folder, with `/` separators."""
    status: Status
    bytes: int


def bundled_root() -> Traversable:
    """The installed example files: the package data, else a source checkout's `examples/`."""
    try:
        packaged: Traversable | None = resources.files(PACKAGED)
    except ModuleNotFoundError:
        packaged = None
    if packaged is not None and packaged.joinpath(MARKER).is_file():
        return packaged
    if CHECKOUT.joinpath(MARKER).is_file():
        return CHECKOUT
    raise GraphMemError(
        f"this installation of graphmem has no example files (no {PACKAGED} package data, "
        f"no {CHECKOUT}): reinstall graphmem-neo4j"
    )


def bundled_files(root: Traversable | None = None) -> list[tuple[str, Traversable]]:
    """(relative path, file) of every example file, sorted by path."""
    found: list[tuple[str, Traversable]] = []

    def walk(folder: Traversable, prefix: str) -> None:
        for entry in folder.iterdir():
            if entry.is_dir():
                if entry.name not in SKIPPED_DIRS:
                    walk(entry, f"{prefix}{entry.name}/")
            elif not entry.name.endswith(SKIPPED_SUFFIXES):
                found.append((f"{prefix}{entry.name}", entry))

    walk(root if root is not None else bundled_root(), "")
    return sorted(found, key=lambda item: item[0])


def copy_examples(target: Path, *, force: bool = False) -> list[Copied]:
    """Copy every example file into `target` (created if missing), keeping sub-folders.
    Raises InputError naming the first file in the way: one whose bytes differ (unless
    `force`), or a folder where a file goes; nothing is written then."""
    if target.exists() and not target.is_dir():
        raise InputError("exists and is not a folder", source=str(target))
    planned: list[tuple[Path, bytes, Status]] = []
    for relative, source in bundled_files():
        data = source.read_bytes()
        destination = target.joinpath(*relative.split("/"))
        _check_parents(target, destination)
        if destination.is_dir():
            raise InputError("is a folder; an example file goes here", source=str(destination))
        if not destination.exists():
            planned.append((destination, data, "written"))
        elif destination.read_bytes() == data:
            planned.append((destination, data, "unchanged"))
        elif force:
            planned.append((destination, data, "replaced"))
        else:
            raise InputError(
                "exists and differs from the bundled example; nothing was copied "
                "(--force replaces it)",
                source=str(destination),
            )
    copied: list[Copied] = []
    for destination, data, status in planned:
        if status != "unchanged":
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(data)
        relative = destination.relative_to(target).as_posix()
        copied.append(Copied(relative, status, len(data)))
    return copied


def _check_parents(target: Path, destination: Path) -> None:
    """A file where one of the destination's folders goes is in the way."""
    for parent in destination.relative_to(target).parents:
        folder = target / parent
        if folder.exists() and not folder.is_dir():
            raise InputError(
                "exists and is not a folder; example files go in it", source=str(folder)
            )
