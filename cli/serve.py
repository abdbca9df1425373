"""`graphmem serve` (the MCP tools over HTTP with API keys) and `graphmem keys`."""

from __future__ import annotations

from datetime import UTC, datetime

import typer

from .common import JSON, emit_json, handle_errors, open_memory

keys_app = typer.Typer(
    rich_markup_mode=None,
    help="API keys of `graphmem serve`. A key names the spaces it may use and whether it may "
    "write; the graph keeps only its sha256, so a key is shown once, when it is created.",
    no_args_is_help=True,
)


def _when(ms: int | None) -> str:
    if ms is None:
        return "-"
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%SZ")


@keys_app.command("create")
@handle_errors
def create(
    spaces: list[str] = typer.Option(
        ..., "--space", "-s", help="A space the key may use (repeat for several)"
    ),
    read_only: bool = typer.Option(False, "--read-only", help="The key may only read"),
    name: str | None = typer.Option(None, "--name", help="A note saying whose key it is"),
    as_json: bool = JSON,
) -> None:
    """Create a key and print it once; store it where the client keeps secrets."""
    from graphmem_neo4j.keys import KeyRing

    key, record = KeyRing(open_memory().store).create(spaces, read_only=read_only, name=name)
    if as_json:
        emit_json({"key": key, **record.as_dict()})
        return
    rights = "read-only" if record.read_only else "read-write"
    typer.echo(f"key {record.id} ({rights}) for spaces: {', '.join(record.spaces)}", err=True)
    typer.echo("shown only now; the graph keeps its hash:", err=True)
    typer.echo(key)


@keys_app.command("list")
@handle_errors
def list_keys(as_json: bool = JSON) -> None:
    """Every key: id, spaces, rights, created, last used, revoked (never the key itself)."""
    from graphmem_neo4j.keys import KeyRing

    found = KeyRing(open_memory().store).list()
    if as_json:
        emit_json([k.as_dict() for k in found])
        return
    if not found:
        typer.echo("no keys (graphmem keys create --space NAME)")
    for k in found:
        rights = "ro" if k.read_only else "rw"
        state = f"revoked {_when(k.revoked_at)}" if k.revoked_at else "live"
        typer.echo(
            f"{k.id}  {rights}  {','.join(k.spaces)}  created {_when(k.created_at)}  "
            f"last used {_when(k.last_used_at)}  {state}" + (f"  ({k.name})" if k.name else "")
        )


@keys_app.command("revoke")
@handle_errors
def revoke(
    key_id: str = typer.Argument(..., help="The key's id (graphmem keys list)"),
    as_json: bool = JSON,
) -> None:
    """Revoke a key: a running server refuses it (401) from its next request."""
    from graphmem_neo4j.keys import KeyRing

    record = KeyRing(open_memory().store).revoke(key_id)
    if as_json:
        emit_json(record.as_dict())
    else:
        typer.echo(f"revoked {record.id} at {_when(record.revoked_at)}")


def register(app: typer.Typer) -> None:
    app.add_typer(keys_app, name="keys")

    @app.command()
    @handle_errors
    def serve(
        host: str = typer.Option(
            "127.0.0.1",
            "--host",
            help="Address to listen on (0.0.0.0: every interface; put TLS in front)",
        ),
        port: int = typer.Option(8765, "--port", help="TCP port"),
    ) -> None:
        """Serve the MCP tools over streamable HTTP at http://HOST:PORT/mcp. Every request
        needs `Authorization: Bearer <key>` (graphmem keys create); each call is confined to
        the key's spaces, and read-only keys cannot write. Bodies over 1 MiB get 413."""
        from graphmem_neo4j import serve as http

        typer.echo(f"graphmem serve: http://{host}:{port}{http.PATH} (Ctrl-C stops)", err=True)
        http.run(open_memory(), host=host, port=port)
