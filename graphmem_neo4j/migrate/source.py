"""The source Neo4j: read-only sessions only, so a migration never writes to it."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from ..errors import AuthenticationFailed, EngineUnavailable, QueryError
from ..queries import load_query
from ..settings import redact_uri

logging.getLogger("neo4j").addHandler(logging.NullHandler())


@dataclass(frozen=True)
class SourceConfig:
    uri: str
    user: str = "neo4j"
    password: str | None = None
    database: str | None = None


class SourceGraph:
    """Runs `cypher/migrate/*.cypher` against the source in READ access mode (a write there
    fails on the server, not only by convention)."""

    def __init__(self, config: SourceConfig, *, timeout: float = 30.0) -> None:
        import neo4j
        import neo4j.exceptions

        self.config = config
        self._neo4j = neo4j
        self._errors = neo4j.exceptions
        auth = (config.user, config.password) if config.password is not None else None
        try:
            self._driver = neo4j.GraphDatabase.driver(
                config.uri,
                auth=auth,
                connection_timeout=timeout,
                notifications_min_severity="OFF",
            )
            self._driver.verify_connectivity()
        except Exception as e:
            raise self._wrap(e) from e

    def _wrap(self, e: Exception) -> Exception:
        errs = self._errors
        where = redact_uri(self.config.uri)
        if isinstance(e, errs.AuthError):
            return AuthenticationFailed(f"source Neo4j at {where} refused user/password")
        if isinstance(e, errs.Neo4jError):
            return QueryError(f"source Neo4j rejected a query: {e.code}: {e.message}")
        reason = " ".join(str(e).split())
        return EngineUnavailable(f"cannot read the source Neo4j at {where}: {reason}")

    def read(self, name: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Rows of query `migrate/<name>` run in a read transaction."""
        text = load_query(f"migrate/{name}", "neo4j")
        values = dict(params or {})

        def work(tx: Any) -> list[dict[str, Any]]:
            return [record.data() for record in tx.run(text, values)]

        try:
            with self._driver.session(
                database=self.config.database, default_access_mode=self._neo4j.READ_ACCESS
            ) as session:
                rows: list[dict[str, Any]] = session.execute_read(work)
                return rows
        except Exception as e:
            raise self._wrap(e) from e

    def counts(self) -> dict[str, int]:
        row = self.read("source_counts")[0]
        return {"nodes": int(row["nodes"]), "relationships": int(row["relationships"])}

    def close(self) -> None:
        self._driver.close()


def epoch_ms(value: Any) -> int | None:
    """A source time as epoch milliseconds: an int (ms, or s when small), an ISO-8601 string,
    or a Neo4j/Python date-time. None when absent; ValueError when it is not a time."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError(f"not a time: {value!r}")
    if isinstance(value, int | float):
        number = float(value)
        return int(number * 1000) if abs(number) < 1e11 else int(number)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise ValueError("an empty time")
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        return _from_datetime(parsed)
    to_native = getattr(value, "to_native", None)
    if callable(to_native):
        value = to_native()
    if isinstance(value, datetime):
        return _from_datetime(value)
    if isinstance(value, date):
        return _from_datetime(datetime(value.year, value.month, value.day))
    raise ValueError(f"not a time: {value!r}")


def _from_datetime(moment: datetime) -> int:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)
