"""Writes that no answer depends on (access counts, token counters), run after the answer has
been returned: in order, on one background thread per owner. `settle` waits for them; a write
that fails is logged, not raised, since a lost access count must not break a later call."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

log = logging.getLogger(__name__)


class AfterWrites:
    def __init__(self, after: str) -> None:
        """`after`: what the writes follow ("recall", "search"), in the thread's name and the
        log."""
        self.after = after
        self._writer: ThreadPoolExecutor | None = None
        self._pending: list[Future[None]] = []
        self._lock = threading.Lock()

    def submit(self, write: Callable[[], None]) -> None:
        with self._lock:
            if self._writer is None:
                self._writer = ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix=f"graphmem-{self.after}-write"
                )
            self._pending = [w for w in self._pending if not w.done()]
            self._pending.append(self._writer.submit(self._logged, write))

    def settle(self) -> None:
        """Wait until every write submitted so far is done."""
        with self._lock:
            pending, self._pending = self._pending, []
        for write in pending:
            write.result()

    def close(self) -> None:
        """Settle, then stop the thread (a later submit starts a new one)."""
        self.settle()
        with self._lock:
            writer, self._writer = self._writer, None
        if writer is not None:
            writer.shutdown(wait=True)

    def _logged(self, write: Callable[[], None]) -> None:
        try:
            write()
        except Exception:
            log.warning("a write after %s failed", self.after, exc_info=True)
