"""Each space's goal model (`task_model.GoalModel`), fitted from the space's own history and
refitted when the space has recorded more tasks since (a count query per use)."""

from __future__ import annotations

import json
import threading
import time

from .store import GraphStore
from .task_model import GoalModel
from .task_similarity import KeyReader
from .task_structure import trajectory_structure

LAYERS = ("insights", "experience")
RECHECK_SECONDS = 2.0
"""How long a reader serves a space's model without asking whether the space has grown
(a count query); the paths that record tasks always ask."""


class SpaceModels:
    """Goal models per (layer, space), cached for one store. A model learns the rows recorded
    since it last looked (in the order they were recorded), so a space's tasks are each read
    once; a replaced run is not unlearnt until the process restarts."""

    def __init__(self, pack_name: str = "") -> None:
        self.pack_name = pack_name
        self._cache: dict[tuple[str, str], tuple[int, int, GoalModel]] = {}
        self._checked: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()

    def reader(
        self, store: GraphStore, space: str, layer: str, *, fresh: bool = False
    ) -> KeyReader:
        """How goals are read in this space of this layer ("insights" or "experience");
        `fresh`: learn what the space recorded since, even within RECHECK_SECONDS."""
        if layer not in LAYERS:
            raise ValueError(f"unknown layer {layer!r}")
        now = time.monotonic()
        with self._lock:
            cached = self._cache.get((layer, space))
            recent = now - self._checked.get((layer, space), -RECHECK_SECONDS) < RECHECK_SECONDS
            if cached is not None and recent and not fresh:
                return KeyReader.of(cached[2], self.pack_name)
        rows = store.read(f"{layer}/structures_latest", {"space": space})
        count = int(rows[0]["n"]) if rows else 0
        with self._lock:
            seen_count, seen_rows, model = self._cache.get((layer, space), (-1, 0, GoalModel()))
            if seen_count != count:
                if count < seen_count:  # the space was emptied or replaced: start again
                    seen_rows, model = 0, GoalModel()
                new = store.read(f"{layer}/structures", {"space": space, "skip": seen_rows})
                for goal, key in _labelled(new, layer):
                    model.learn(goal, key)
                self._cache[(layer, space)] = (count, seen_rows + len(new), model)
            self._checked[(layer, space)] = now
        return KeyReader.of(model, self.pack_name)


def _labelled(rows: list[dict[str, object]], layer: str) -> list[tuple[str, str]]:
    if layer == "insights":
        return [(str(r["text"]), str(r["key"])) for r in rows]
    found = []
    for row in rows:
        actions = [str(step[0]) for step in json.loads(str(row["steps_json"]))]
        key = trajectory_structure(actions)
        if key is not None:
            found.append((str(row["text"]), key))
    return found
