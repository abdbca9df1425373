"""One root exception; every layer raises a subclass, only the CLI turns them into exit codes."""

from __future__ import annotations


class GraphMemError(Exception):
    """Root of every error graphmem raises on purpose."""

    exit_code = 1


class ConfigError(GraphMemError):
    """A setting is missing or malformed (bad URI, unknown engine, bad value)."""

    exit_code = 2


class EngineUnavailable(GraphMemError):
    """The graph engine cannot be reached or started."""

    exit_code = 3


class AuthenticationFailed(GraphMemError):
    """The engine refused the credentials."""

    exit_code = 3


class PortInUse(EngineUnavailable):
    """The embedded server's port is held by another process."""


class QueryError(GraphMemError):
    """The engine rejected a query (a bug in a .cypher file, or a schema conflict)."""


class QueryNotFound(GraphMemError):
    """No .cypher file exists for a query name on this engine."""


class SchemaMismatch(GraphMemError):
    """The graph was built with another embedding model or dimension, or a newer schema."""

    exit_code = 4


class UnknownSpace(GraphMemError):
    """A read named a space that holds no memory."""

    exit_code = 5


class NotFound(GraphMemError):
    """A named record (turn, unit, insight, task, trajectory) does not exist in the space."""

    exit_code = 5


class InputError(GraphMemError):
    """Bad user input; names where it was found so the user can fix it."""

    exit_code = 6

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.reason = message
        self.source = source
        self.line = line
        self.field = field
        where = []
        if source is not None:
            where.append(source if line is None else f"{source}:{line}")
        if field is not None:
            where.append(f"field '{field}'")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class LLMError(GraphMemError):
    """The LLM endpoint failed or kept returning output that does not validate."""

    exit_code = 7
