"""A small memo in front of the embedder: a recall asks every layer about the same query, and
each layer embeds it; with this the model runs once per query text, even when the layers ask
at the same moment from their own threads."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future

from ..embedder import Embedder

MAX_TEXTS_PER_CALL = 16
"""Only calls this small are memoised: queries (with up to 8 concept probes), not ingestion
batches."""
MAX_TEXT_CHARS = 2000


class QueryMemo:
    """Wraps an embedder; remembers the vectors of the last `size` short texts it was asked
    for in small calls, and makes a caller asking for a text another thread is embedding right
    now wait for that result instead of running the model again. Embeddings are
    deterministic, so a remembered vector is the one the model would return again.
    `name` and `dimension` are the wrapped model's."""

    def __init__(self, inner: Embedder, size: int = 256) -> None:
        self.inner = inner
        self.name = inner.name
        self.size = size
        self._memo: OrderedDict[str, list[float]] = OrderedDict()
        self._running: dict[str, Future[dict[str, list[float]]]] = {}
        self._lock = threading.Lock()

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def clear(self) -> None:
        """Forget every remembered vector (benchmarks time each query's own embedding)."""
        with self._lock:
            self._memo.clear()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if len(texts) > MAX_TEXTS_PER_CALL or any(len(t) > MAX_TEXT_CHARS for t in texts):
            return self.inner.embed(texts)
        known, waiting, run = self._claim(texts)
        known.update(run())
        for text, other in waiting.items():
            known[text] = other.result()[text]
        return [list(known[t]) for t in texts]

    def reserve(self, texts: Sequence[str]) -> Callable[[], object]:
        """Mark `texts` as being embedded from now on and return the call that embeds them
        in one model call. Whoever asks for one of them meanwhile, from any thread, waits for
        that call instead of running the model itself."""
        return self._claim(texts)[2]

    def _claim(
        self, texts: Sequence[str]
    ) -> tuple[
        dict[str, list[float]],
        dict[str, Future[dict[str, list[float]]]],
        Callable[[], dict[str, list[float]]],
    ]:
        """Split `texts` into remembered vectors, texts another call is embedding (their
        futures), and the rest, registered as running: the returned call embeds those."""
        known: dict[str, list[float]] = {}
        waiting: dict[str, Future[dict[str, list[float]]]] = {}
        mine: list[str] = []
        job: Future[dict[str, list[float]]] = Future()
        with self._lock:
            for text in dict.fromkeys(texts):
                if text in self._memo:
                    self._memo.move_to_end(text)
                    known[text] = self._memo[text]
                elif text in self._running:
                    waiting[text] = self._running[text]
                else:
                    mine.append(text)
                    self._running[text] = job

        def run() -> dict[str, list[float]]:
            if not mine:
                return {}
            try:
                fresh = dict(zip(mine, self.inner.embed(mine), strict=True))
            except BaseException as e:
                with self._lock:
                    for text in mine:
                        self._running.pop(text, None)
                job.set_exception(e)
                raise
            with self._lock:
                for text, vector in fresh.items():
                    self._memo[text] = vector
                    self._memo.move_to_end(text)
                    self._running.pop(text, None)
                while len(self._memo) > self.size:
                    self._memo.popitem(last=False)
            job.set_result(fresh)
            return fresh

        return known, waiting, run
