"""Neo4j through the official driver: explicit database, reads routed to readers, causal
consistency across every call of the store."""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

from neo4j.graph import Node, Path, Relationship

from ..errors import AuthenticationFailed, EngineUnavailable, QueryError
from ..nearest import QUANTISED_ERROR
from ..queries import Dialect, explained, load_query, queries_for, vector_index_queries
from ..settings import EngineTarget, redact_uri
from .base import BatchingMixin, Params, Row
from .params import check_params
from .write_lock import WriteLock

WARM_LAYERS = ("core", "conversation", "facts", "insights", "experience", "recall", "tokens")
"""The layers whose queries `warm()` plans: what ingest, search and recall run. Export, import
and Browser queries plan on first use."""

_SCHEMA_ALREADY = "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"
SEARCH_SINCE = (2026, 2)
"""The first Neo4j release whose Cypher 25 has the vector SEARCH clause with in-index filters
(generally available): from it on, the store sends queries in their SEARCH form (queries.py)."""
_NO_FILTER = "22ND3"
_NO_FILTER_HINT = (
    " (a vector index without the space filter: run `graphmem init` to rebuild the vector "
    "indexes with it)"
)
_AGENT_VERSION = re.compile(r"^Neo4j/(\d+)\.(\d+)")

# The driver logs its retries as warnings; a library must not print them on its users' stderr.
logging.getLogger("neo4j").addHandler(logging.NullHandler())
log = logging.getLogger(__name__)


class Neo4jStore(BatchingMixin):
    dialect: Dialect = "neo4j"

    def __init__(
        self,
        target: EngineTarget,
        *,
        user: str,
        password: str | None,
        database: str = "neo4j",
        timeout: float = 30.0,
    ) -> None:
        import neo4j
        import neo4j.exceptions

        assert target.uri is not None
        self.target = target
        self.database = database
        self._neo4j = neo4j
        self._errors = neo4j.exceptions
        self._space_locks: dict[str, WriteLock] = {}
        auth = (user, password) if password is not None else None
        try:
            self._driver = neo4j.GraphDatabase.driver(
                redact_uri(target.uri),
                auth=auth,
                connection_timeout=timeout,
                max_transaction_retry_time=timeout,
                # the server's hints (unknown labels on a fresh graph, ...) are not the
                # user's business; errors still raise
                notifications_min_severity="OFF",
            )
            self._driver.verify_connectivity()
        except Exception as e:
            raise self._wrap(e) from e
        # One bookmark manager for the store: a read follows every write this store made, on
        # whichever cluster member it is routed to (read-your-writes on Aura and clusters).
        self._bookmarks = neo4j.GraphDatabase.bookmark_manager()
        self.observe: Callable[[Any], None] | None = None
        """Called with the driver's summary of every query (server timings), when set."""
        self.server_search = has_vector_search(self.server_info()["agent"])
        """Whether the server has Cypher 25's vector SEARCH with in-index filters."""
        self.unfiltered_vector_indexes = self._unfiltered() if self.server_search else []
        """Vector indexes of this store without `space` as a filter property (created by a
        server without SEARCH): until `add_space_filters` rebuilds them, lookups take the
        `db.index.vector.queryNodes` path, which every index answers."""
        self.vector_space_filter = self.server_search and not self.unfiltered_vector_indexes
        """Whether vector indexes filter by space inside the index (nearest.py)."""
        if self.unfiltered_vector_indexes:
            log.warning(
                "Neo4j at %s has vector SEARCH, but this store's vector indexes %s have no "
                "space filter (created by an older Neo4j): lookups use the slower "
                "db.index.vector.queryNodes path; run `graphmem init` to rebuild them with it",
                self.target.redacted(),
                ", ".join(self.unfiltered_vector_indexes),
            )

    def _wrap(self, e: Exception) -> Exception:
        errs = self._errors
        where = self.target.redacted()
        if isinstance(e, errs.AuthError):
            return AuthenticationFailed(f"Neo4j at {where} refused user/password")
        if isinstance(e, (errs.ServiceUnavailable, errs.SessionExpired, OSError)):
            reason = " ".join(str(e).split())
            return EngineUnavailable(f"cannot reach Neo4j at {where}: {reason}")
        if isinstance(e, errs.ConfigurationError | ValueError):
            return EngineUnavailable(f"cannot use Neo4j URI {where}: {e}")
        if isinstance(e, errs.Neo4jError):
            return QueryError(f"Neo4j rejected a query: {e.code}: {e.message}")
        return EngineUnavailable(f"Neo4j at {where}: {e}")

    def _run(self, query: str, params: Params | None, *, read_only: bool) -> list[Row]:
        text = load_query(query, self.dialect, search=self.vector_space_filter)
        values = dict(params or {})
        check_params(values, self.dialect)
        try:
            records = self._read(text, values) if read_only else self._write(text, values)
        except Exception as e:
            err = self._wrap(e)
            if isinstance(err, QueryError):
                hint = _NO_FILTER_HINT if _NO_FILTER in str(err) else ""
                raise QueryError(f"query {query}: {err}{hint}") from e
            raise err from e
        return [{key: _plain(value) for key, value in record.items()} for record in records]

    def _read(self, text: str, values: dict[str, Any]) -> list[Any]:
        # An auto-commit transaction: RUN and PULL in one round trip, where a managed one also
        # sends BEGIN and waits for COMMIT. A read is safe to repeat, so an error the driver
        # calls retryable (a cluster member going away) is retried once as a managed
        # transaction, which retries on its own.
        try:
            with self._driver.session(
                database=self.database,
                bookmark_manager=self._bookmarks,
                default_access_mode=self._neo4j.READ_ACCESS,
            ) as session:
                result = session.run(text, values)
                records = list(result)
                if self.observe is not None:
                    self.observe(result.consume())
                return records
        except (self._errors.Neo4jError, self._errors.DriverError) as e:
            if not e.is_retryable():
                raise
        return self._managed(text, values, self._neo4j.RoutingControl.READ)

    def _write(self, text: str, values: dict[str, Any]) -> list[Any]:
        return self._managed(text, values, self._neo4j.RoutingControl.WRITE)

    def _managed(self, text: str, values: dict[str, Any], routing: Any) -> list[Any]:
        # A managed transaction: transient errors (leader switch, deadlock) are retried.
        records, summary, _ = self._driver.execute_query(
            text,
            values,
            database_=self.database,
            routing_=routing,
            bookmark_manager_=self._bookmarks,
        )
        if self.observe is not None:
            self.observe(summary)
        return list(records)

    @property
    def vector_index_error(self) -> float:
        """How far the vector index's similarities can lie from the exact cosine (nearest.py):
        SEARCH's scores are exact, `db.index.vector.queryNodes`' are the quantised index's."""
        return 0.0 if self.vector_space_filter else QUANTISED_ERROR

    def read(self, query: str, params: Params | None = None) -> list[Row]:
        return self._run(query, params, read_only=True)

    def write(self, query: str, params: Params | None = None) -> list[Row]:
        try:
            return self._run(query, params, read_only=False)
        except QueryError as e:
            # Two `CREATE ... IF NOT EXISTS` at once: the second meets the first's index.
            if _SCHEMA_ALREADY in str(e):
                return []
            raise

    def warm(self) -> int:
        """Plan every query the layers run (`EXPLAIN`: nothing is read or written), so that a
        fresh server's first commands do not pay the Cypher planner's cold start (its code
        compiled by the JVM, the schema read, each query parsed and planned). Only the
        WARM_LAYERS' queries, and not their DDL (`schema_*`). Returns how many queries were
        planned; a query the server cannot plan yet is left to its first use."""
        planned = 0
        try:
            with self._driver.session(database=self.database) as session:
                for name, text in queries_for(
                    self.dialect, search=self.vector_space_filter
                ).items():
                    layer, base = name.split("/")
                    if layer not in WARM_LAYERS or base.startswith("schema_"):
                        continue
                    try:
                        session.run(explained(text)).consume()
                    except self._errors.Neo4jError:
                        continue
                    planned += 1
        except Exception as e:
            raise self._wrap(e) from e
        return planned

    def _unfiltered(self) -> list[str]:
        """graphmem's vector indexes that lack `space` among their properties."""
        ours = vector_index_queries(self.dialect)
        try:
            rows = self._run("core/list_vector_indexes", None, read_only=True)
        except QueryError:  # a user without SHOW INDEX: assume the indexes this server makes
            log.debug("cannot list the vector indexes", exc_info=True)
            return []
        return [
            str(row["name"])
            for row in rows
            if row["name"] in ours and "space" not in (row["properties"] or [])
        ]

    def add_space_filters(self, dimension: int) -> list[str]:
        """On a server with vector SEARCH: drop each of graphmem's vector indexes that lacks
        the `space` filter property and create it again with it (the embeddings stay on the
        nodes; the server fills the new index from them), then use SEARCH. Also creates any
        vector index missing (a rebuild interrupted between drop and create). Idempotent;
        returns the names of the indexes rebuilt. Nothing to do on other servers."""
        if not self.server_search:
            return []
        unfiltered = self._unfiltered()
        for name in unfiltered:
            self.write("core/schema_drop_index", {"name": name})
        self.unfiltered_vector_indexes = []
        self.vector_space_filter = True
        for query in vector_index_queries(self.dialect).values():
            self.write(query, {"dimension": dimension})
        if unfiltered:
            self.write("core/await_indexes")
        return unfiltered

    def exclusive(self, space: str) -> contextlib.AbstractContextManager[None]:
        """One writer at a time in `space`, across processes, for an operation of several
        transactions (see write_lock.py). Waits up to an hour for another one to finish."""
        lock = self._space_locks.setdefault(
            space,
            WriteLock(
                _NodeLease(self),
                f"space:{space}",
                wrap=self._wrap,
                wait=3600.0,
                expiry_ms=3_600_000,
            ),
        )
        return lock.held()

    def ensure_unique(self, label: str, properties: Sequence[str]) -> None:
        """Neo4j's constraints are plain Cypher DDL in the migration files."""

    def checkpoint(self) -> None:
        """Neo4j's schema is durable once the DDL transaction commits."""

    def ping(self) -> None:
        try:
            self._driver.verify_connectivity()
        except Exception as e:
            raise self._wrap(e) from e

    def server_info(self) -> dict[str, Any]:
        try:
            info = self._driver.get_server_info()
        except Exception as e:
            raise self._wrap(e) from e
        return {
            "engine": "neo4j",
            "agent": info.agent,
            "protocol_version": ".".join(map(str, info.protocol_version)),
            "database": self.database,
        }

    def close(self) -> None:
        self._driver.close()


class _NodeLease:
    """write_lock's lease as a (:GraphMemLock) node (core/lock_take, core/lock_release)."""

    def __init__(self, store: Neo4jStore) -> None:
        self.store = store

    def take(self, key: str, token: str, expiry_ms: int) -> str | None:
        rows = self.store.write(
            "core/lock_take",
            {"key": key, "token": token, "now": int(time.time() * 1000), "expiry_ms": expiry_ms},
        )
        holder = rows[0]["holder"] if rows else None
        return str(holder) if holder is not None else None

    def release(self, key: str, token: str) -> None:
        self.store.write("core/lock_release", {"key": key, "token": token})


def _plain(value: Any) -> Any:
    """Driver values as plain Python: nodes and relationships become their property dicts (as
    on FalkorDB; `Record.data()` would turn a relationship into a tuple), paths a list of
    them. Queries should return values anyway."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list):
        if all(isinstance(v, float) for v in value):  # a vector: nothing to convert
            return value
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, Node | Relationship):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, Path):
        return [_plain(n) for n in value.nodes]
    return value


def has_vector_search(agent: str) -> bool:
    """Whether the server announcing itself as `agent` ("Neo4j/2026.08.1") has SEARCH."""
    found = _AGENT_VERSION.match(agent or "")
    return found is not None and (int(found[1]), int(found[2])) >= SEARCH_SINCE
