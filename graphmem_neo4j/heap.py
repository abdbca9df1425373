"""Keep the cyclic garbage collector's full passes short in a process that serves queries.

CPython's oldest-generation collection walks every tracked object, and a process that has
imported graphmem (the model runtime, the engine client, the CLI's modules) holds ~40k of
them. On the 2-core machine each such pass took 22-36 ms while recall's threads were
running, ten times in 200 recalls: they were the recall benchmark's p95 (75 ms against 66 ms
with the startup heap frozen, `benchmarks/recall_scale.py`). Freezing moves what exists now
into a permanent generation the collector skips; objects made later are collected as usual.
"""

from __future__ import annotations

import gc
import threading

_lock = threading.Lock()
_frozen = False


def freeze_startup_heap() -> bool:
    """Freeze the objects alive now (once per process); returns whether this call did it."""
    global _frozen
    with _lock:
        if _frozen:
            return False
        gc.collect()  # what is garbage already must not be kept forever
        gc.freeze()
        _frozen = True
        return True
