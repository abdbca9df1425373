"""Each space's lexical goal index (`lexical.GoalIndex`), learnt from the goals and actions
the space has recorded and brought up to date when it has recorded more (a count query per use,
at most one per RECHECK_SECONDS for readers; recording always checks)."""

from __future__ import annotations

import threading
import time

from ..lexical import GoalIndex
from ..space_structures import RECHECK_SECONDS
from ..store import GraphStore


class SpaceGoals:
    """Goal indexes per space, for one store. An index adds the goals recorded since it last
    looked; a space that shrank (emptied, replaced) is read again from the start."""

    def __init__(self) -> None:
        self._cache: dict[str, tuple[int, int, GoalIndex]] = {}
        self._checked: dict[str, float] = {}
        self._lock = threading.Lock()

    def index(self, store: GraphStore, space: str, *, fresh: bool = False) -> GoalIndex:
        now = time.monotonic()
        with self._lock:
            cached = self._cache.get(space)
            recent = now - self._checked.get(space, -RECHECK_SECONDS) < RECHECK_SECONDS
            if cached is not None and recent and not fresh:
                return cached[2]
        rows = store.read("insights/structures_latest", {"space": space})
        count = int(rows[0]["n"]) if rows else 0
        with self._lock:
            seen_count, seen_rows, index = self._cache.get(space, (-1, 0, GoalIndex()))
            if seen_count != count:
                if count < seen_count:
                    seen_rows, index = 0, GoalIndex()
                new = store.read("insights/query_goals", {"space": space, "skip": seen_rows})
                for r in new:
                    kind = r.get("kind")
                    index.add(
                        str(r["id"]),
                        str(r["text"]),
                        [str(a) for a in r["actions"]],
                        kind=None if kind is None else str(kind),
                    )
                self._cache[space] = (count, seen_rows + len(new), index)
            self._checked[space] = now
            return index
