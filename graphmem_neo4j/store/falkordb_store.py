"""FalkorDB over its Redis protocol (store/resp.py, store/falkordb_protocol.py). Never its
experimental Bolt port."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from typing import Any

from ..errors import AuthenticationFailed, EngineUnavailable, IndexUnavailable, QueryError
from ..queries import Dialect, load_query, uses_vector_index
from ..settings import EngineTarget
from . import falkordb_vectors
from .base import BatchingMixin, Params, Row
from .falkordb_protocol import Schema, parse_result, with_parameters
from .params import check_params
from .resp import Client, ServerError
from .write_lock import RedisLease, WriteLock

_ALREADY = ("already indexed", "already exists")
_NO_VECTOR_INDEX = "Invalid arguments for procedure 'db.idx.vector.queryNodes'"
"""What FalkorDB says when a vector index is missing or still being built."""


class FalkorDBStore(BatchingMixin):
    dialect: Dialect = "falkordb"
    vector_index_error = 0.0
    """Its vector index's similarities are the exact cosine at float32 (nearest.py)."""

    def __init__(
        self,
        target: EngineTarget,
        *,
        host: str | None = None,
        port: int | None = None,
        unix_socket: str | None = None,
        password: str | None,
        graph: str = "graphmem",
        timeout: float = 30.0,
    ) -> None:
        self.target = target
        self.graph_name = graph
        self._client = Client(
            unix_socket=unix_socket,
            host=host,
            port=port,
            password=password,
            timeout=timeout,
            connect_timeout=5.0,
        )
        self._schema = Schema(
            lambda name: self._command("GRAPH.RO_QUERY", load_query(name, self.dialect))
        )
        self._lease = RedisLease(self._client)
        self._write_lock = WriteLock(self._lease, f"graphmem:write-lock:{graph}", wrap=self._wrap)
        self._space_locks: dict[str, WriteLock] = {}
        self._writes = 0
        self._refill_key = f"graphmem:vector-refill:{graph}"
        self.ping()

    def _wrap(self, e: Exception) -> Exception:
        where = self.target.redacted()
        text = str(e)
        if isinstance(e, ServerError) and e.code in ("WRONGPASS", "NOAUTH", "NOPERM"):
            return AuthenticationFailed(f"FalkorDB at {where} refused the password")
        if isinstance(e, ServerError) and "invalid password" in text:
            return AuthenticationFailed(f"FalkorDB at {where} refused the password")
        if isinstance(e, ServerError) and e.code == "LOADING":
            return EngineUnavailable(f"FalkorDB at {where} is still loading its data; retry")
        if isinstance(e, OSError):
            reason = text or type(e).__name__
            return EngineUnavailable(f"cannot reach FalkorDB at {where}: {reason}")
        if _NO_VECTOR_INDEX in text:
            return IndexUnavailable(f"FalkorDB's vector index is missing or being built: {text}")
        return QueryError(f"FalkorDB rejected a query: {text}")

    def _command(self, command: str, text: str) -> list[Any]:
        reply: list[Any] = self._client.execute(command, self.graph_name, text, "--compact")
        return reply

    def _run(self, query: str, params: Params | None, *, read_only: bool) -> list[Row]:
        text = load_query(query, self.dialect)
        check_params(params or {}, self.dialect)
        command = "GRAPH.RO_QUERY" if read_only else "GRAPH.QUERY"
        try:
            header, rows = parse_result(
                self._command(command, with_parameters(text, params or {})), self._schema
            )
        except (ServerError, OSError) as e:
            err = self._wrap(e)
            if isinstance(err, QueryError):
                raise type(err)(f"query {query}: {err}") from e
            raise err from e
        return [dict(zip(header, row, strict=True)) for row in rows]

    def read(self, query: str, params: Params | None = None) -> list[Row]:
        if uses_vector_index(query, self.dialect) and self._refilling():
            raise IndexUnavailable(f"query {query}: a vector index is being refilled")
        return self._read(query, params)

    def _read(self, query: str, params: Params | None) -> list[Row]:
        try:
            return self._run(query, params, read_only=True)
        except QueryError as e:
            # The graph key appears with the first write; before that every read is empty.
            if "empty key" in str(e):
                return []
            raise

    def write(self, query: str, params: Params | None = None) -> list[Row]:
        try:
            with self._write_lock.held():
                rows = self._run(query, params, read_only=False)
        except QueryError as e:
            # Index DDL is not idempotent on FalkorDB; a re-run migration meets its own work.
            if any(marker in str(e) for marker in _ALREADY):
                return []
            raise
        self._writes += 1
        if self._writes % falkordb_vectors.REPAIR_EVERY == 0:
            self.repair_vector_indexes()
        return rows

    def repair_vector_indexes(
        self,
        min_documents: int = falkordb_vectors.MIN_DOCUMENTS,
        healthy: float = falkordb_vectors.HEALTHY_SHARE,
    ) -> list[str]:
        """Rebuild the vector indexes that orphaned vectors have made answer below `healthy`
        of what they hold (falkordb_vectors.py); the labels rebuilt."""

        def rebuild(drop: str | None, create: str, dimension: int) -> None:
            # While the index refills it answers with the nodes indexed so far, which could
            # pass as settled: every process's lookups scan exactly until it is built.
            with self._write_lock.held():
                self._mark_refilling()
                try:
                    try:
                        if drop is not None:
                            self._command("GRAPH.QUERY", drop)
                    except ServerError as e:  # another process dropped it first
                        if "unable to drop" not in str(e).lower():
                            raise self._wrap(e) from e
                    try:
                        self._run(create, {"dimension": dimension}, read_only=False)
                    except QueryError as e:  # or created it again first
                        if not any(marker in str(e) for marker in _ALREADY):
                            raise
                    self._await_vector_indexes()
                finally:
                    self._client.execute("DEL", self._refill_key)

        def read(query: str, params: dict[str, object]) -> list[Row]:
            return self._read(query, params)

        return falkordb_vectors.repair(read, rebuild, min_documents=min_documents, healthy=healthy)

    def _refilling(self) -> bool:
        try:
            return bool(self._client.execute("EXISTS", self._refill_key))
        except (ServerError, OSError) as e:
            raise self._wrap(e) from e

    def _mark_refilling(self) -> None:
        expiry = int(falkordb_vectors.REFILL_WAIT * 1000) + 60_000  # a crashed rebuild's mark
        self._client.execute("SET", self._refill_key, "1", "PX", expiry)

    def _await_vector_indexes(self) -> None:
        """Until every vector index is built and listed once (the old one of a rebuild goes in
        the background), at most REFILL_WAIT seconds."""
        deadline = time.monotonic() + falkordb_vectors.REFILL_WAIT
        while time.monotonic() < deadline:
            indexes = falkordb_vectors.vector_indexes(self._read("core/vector_index_stats", {}))
            if all(index.built for index in indexes):
                return
            time.sleep(0.02)

    def exclusive(self, space: str) -> contextlib.AbstractContextManager[None]:
        """One writer at a time in `space`, across processes, for an operation of several
        statements (see write_lock.py). Waits up to an hour for another one to finish."""
        lock = self._space_locks.setdefault(
            space,
            WriteLock(
                self._lease,
                f"graphmem:space-lock:{self.graph_name}:{space}",
                wrap=self._wrap,
                wait=3600.0,
                expiry_ms=3_600_000,
            ),
        )
        return lock.held()

    def ensure_unique(self, label: str, properties: Sequence[str]) -> None:
        try:
            self._client.execute(
                "GRAPH.CONSTRAINT",
                "CREATE",
                self.graph_name,
                "UNIQUE",
                "NODE",
                label,
                "PROPERTIES",
                len(properties),
                *properties,
            )
        except Exception as e:
            if "already exists" in str(e):
                return
            raise self._wrap(e) from e

    def checkpoint(self) -> None:
        """Rewrite the embedded server's AOF. FalkorDB builds indexes asynchronously while it
        replays an AOF, so MERGEs replayed after an index's creation scan whole labels (a
        10k-node replay took 22 s); with the index in the RDB base it took 0.4 s. External
        servers are left to their operators."""
        if not self.target.embedded:
            return
        try:
            rewrite_aof(self._client)
        except (ServerError, OSError) as e:
            raise self._wrap(e) from e

    def ping(self) -> None:
        try:
            self._client.ping()
        except (ServerError, OSError) as e:
            raise self._wrap(e) from e

    def server_info(self) -> dict[str, Any]:
        try:
            info = self._client.info("server")
            modules = self._client.execute("MODULE", "LIST")
        except (ServerError, OSError) as e:
            raise self._wrap(e) from e
        version = None
        for module in modules or []:
            entry = _pairs(module)
            if str(entry.get("name", "")).lower() in ("graph", "falkordb"):
                version = entry.get("ver")
        return {
            "engine": "falkordb",
            "redis_version": info.get("redis_version"),
            "falkordb_module_version": version,
            "graph": self.graph_name,
        }

    def close(self) -> None:
        # closing a dead connection is not an error worth raising
        with contextlib.suppress(OSError):
            self._client.close()


def rewrite_aof(client: Client, timeout: float = 120.0) -> None:
    """BGREWRITEAOF and wait for it to finish (bounded)."""
    with contextlib.suppress(ServerError):  # "already in progress" is fine: we wait for it
        client.execute("BGREWRITEAOF")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = client.info("persistence")
        busy = info.get("aof_rewrite_in_progress", "0") != "0"
        if not busy and info.get("aof_rewrite_scheduled", "0") == "0":
            return
        time.sleep(0.05)


def _pairs(module: Any) -> dict[str, Any]:
    if isinstance(module, dict):
        return {(k.decode() if isinstance(k, bytes) else k): v for k, v in module.items()}
    items = list(module)
    out: dict[str, Any] = {}
    for key, value in zip(items[::2], items[1::2], strict=False):
        k = key.decode() if isinstance(key, bytes) else str(key)
        out[k] = value.decode() if isinstance(value, bytes) else value
    return out
