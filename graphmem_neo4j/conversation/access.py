"""Access counts: what forgetting's recency and frequency terms read. A search counts the
turns (and `sf` entities) it returns, a recall the turns it packs; the write can run after
the answer, on a background thread (after_writes.py)."""

from __future__ import annotations

from collections.abc import Sequence

from ..after_writes import AfterWrites
from ..schema import now_ms
from .deps import Parts
from .state import SpaceState


class Accesses:
    def __init__(self, parts: Parts, state: SpaceState) -> None:
        self.parts = parts
        self.state = state
        self.writes = AfterWrites("search")

    def record(
        self,
        space: str,
        turn_ids: Sequence[str],
        entity_ids: Sequence[str] = (),
        clock: int | None = None,
        *,
        later: bool = False,
    ) -> None:
        """Count turns (and entities) as accessed now, at the space's clock (read now unless
        given). With `later` the write runs after the caller goes on, in order (`settle`)."""
        store = self.parts.store
        if clock is None:
            clock = self.state.facts(space).clock
        params = {"space": space, "now": now_ms(), "clock": clock}
        turns, entities = list(turn_ids), list(entity_ids)

        def write() -> None:
            store.write("conversation/touch_turns", {**params, "ids": turns})
            if entities:
                store.write("conversation/touch_entities", {**params, "ids": entities})

        if later:
            self.writes.submit(write)
        else:
            write()

    def settle(self) -> None:
        """Wait until the counts recorded `later` are written."""
        self.writes.settle()

    def close(self) -> None:
        self.writes.close()
