"""Neo4j through the official driver: explicit database, reads routed to readers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import AuthenticationFailed, EngineUnavailable, QueryError
from ..queries import Dialect, load_query
from ..settings import EngineTarget, redact_uri
from .base import BatchingMixin, Params, Row
from .params import check_params


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
        text = load_query(query, self.dialect)
        values = dict(params or {})
        check_params(values, self.dialect)

        def work(tx: Any) -> list[Row]:
            return [record.data() for record in tx.run(text, values)]

        mode = self._neo4j.READ_ACCESS if read_only else self._neo4j.WRITE_ACCESS
        try:
            with self._driver.session(database=self.database, default_access_mode=mode) as s:
                # execute_read/execute_write retry transient errors (leader switch, deadlock).
                if read_only:
                    return list(s.execute_read(work))
                return list(s.execute_write(work))
        except Exception as e:
            err = self._wrap(e)
            if isinstance(err, QueryError):
                raise QueryError(f"query {query}: {err}") from e
            raise err from e

    def read(self, query: str, params: Params | None = None) -> list[Row]:
        return self._run(query, params, read_only=True)

    def write(self, query: str, params: Params | None = None) -> list[Row]:
        return self._run(query, params, read_only=False)

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
