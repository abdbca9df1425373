"""Engine selection: GRAPHMEM_URI unset → embedded FalkorDB; falkordb:// → external FalkorDB;
bolt:// neo4j:// neo4j+s:// → Neo4j."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from ..settings import Settings
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
            server = embedded_server(settings)
            if autostart:
                server.ensure_running()
            return FalkorDBStore(
                target, host="127.0.0.1", port=server.port, password=server.password(), graph=graph
            )
        assert target.host is not None and target.port is not None
        return FalkorDBStore(
            target, host=target.host, port=target.port, password=password, graph=graph
        )

    from .neo4j_store import Neo4jStore

    user = unquote(parts.username) if parts and parts.username else settings.user
    return Neo4jStore(target, user=user, password=password, database=settings.database or "neo4j")
