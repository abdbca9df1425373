"""Engine selection: GRAPHMEM_URI unset → embedded FalkorDB; falkordb:// → external FalkorDB;
bolt:// neo4j:// neo4j+s:// → Neo4j."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from ..errors import EngineUnavailable
from ..settings import EngineTarget, Settings
from .base import GraphStore, Row
from .embedded import EmbeddedServer

__all__ = ["EmbeddedServer", "GraphStore", "Row", "embedded_server", "open_store"]


def embedded_server(settings: Settings) -> EmbeddedServer:
    return EmbeddedServer(settings.home, settings.embedded_port)


def open_store(settings: Settings, *, autostart: bool = True) -> GraphStore:
    """Connect to the configured engine, starting the embedded server if needed."""
    target = settings.engine()
    parts = urlsplit(target.uri) if target.uri else None
    uri_password = unquote(parts.password) if parts and parts.password else None
    password = settings.password.get_secret_value() if settings.password else uri_password
    if target.engine == "falkordb":
        from .falkordb_store import FalkorDBStore

        graph = settings.database or "graphmem"
        if target.embedded:
            return _open_embedded(target, embedded_server(settings), graph, autostart=autostart)
        assert target.host is not None and target.port is not None
        return FalkorDBStore(
            target, host=target.host, port=target.port, password=password, graph=graph
        )

    from .neo4j_store import Neo4jStore

    user = unquote(parts.username) if parts and parts.username else settings.user
    return Neo4jStore(target, user=user, password=password, database=settings.database or "neo4j")


def _open_embedded(
    target: EngineTarget, server: EmbeddedServer, graph: str, *, autostart: bool
) -> GraphStore:
    """A running server is used at once (one connection, no probe); otherwise it is started
    (under the home's lock) and then connected to."""
    from .falkordb_store import FalkorDBStore

    def connect() -> FalkorDBStore:
        return FalkorDBStore(
            target, unix_socket=str(server.socket_path), password=server.password(), graph=graph
        )

    server.check_socket_path()
    if server.socket_path.exists():
        try:
            return connect()
        except EngineUnavailable:
            if not autostart:
                raise
    if autostart:
        server.ensure_running()
    return connect()
