"""Full-text entries (`Turn.stems`, fulltext.stem_keys) for turns stored without them: by a
version before migration 105, or in a dump written by one."""

from __future__ import annotations

from collections.abc import Iterable

from ..fulltext import stem_keys
from ..store import GraphStore


def backfill_stems(
    store: GraphStore, *, spaces: Iterable[str] | None = None, batch: int = 2000
) -> int:
    """Write the entries of every turn of `spaces` (default: every space) that lacks them;
    how many were written. Only Neo4j indexes them: FalkorDB's index stems `Turn.text`
    itself, and there a property written to a stored node re-indexes its vector and leaves
    the old entry behind (docs/DEVELOPING.md)."""
    if store.dialect != "neo4j":
        return 0
    written = 0
    if spaces is None:
        spaces = [str(r["id"]) for r in store.read("core/list_spaces")]
    for space in spaces:
        while rows := store.read("conversation/stems_todo", {"space": space, "batch": batch}):
            entries = [{"id": r["id"], "stems": stem_keys(str(r["text"] or ""))} for r in rows]
            store.write("conversation/write_stems", {"space": space, "rows": entries})
            written += len(entries)
    return written
