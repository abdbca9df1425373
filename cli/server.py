"""`graphmem server start|stop|status`: the embedded FalkorDB server of this graphmem home."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from .common import emit_json, handle_errors, settings

if TYPE_CHECKING:
    from graphmem_neo4j.store.embedded import EmbeddedServer

app = typer.Typer(
    rich_markup_mode=None,  # plain help, see main.py
    help="Manage the embedded FalkorDB server (used when GRAPHMEM_URI is unset). It listens on "
    "a Unix socket inside GRAPHMEM_HOME that only its owner can open (and on 127.0.0.1:PORT "
    "only when GRAPHMEM_EMBEDDED_PORT is set), requires a generated password kept in "
    "GRAPHMEM_HOME, and persists to an append-only file. Other commands start it on first use.",
    no_args_is_help=True,
)


def _server() -> EmbeddedServer:
    from graphmem_neo4j.errors import ConfigError
    from graphmem_neo4j.store import embedded_server

    current = settings()
    if not current.engine().embedded:
        raise ConfigError(
            "GRAPHMEM_URI is set, so there is no embedded server to manage; unset it to use one"
        )
    return embedded_server(current)


def _print(status: dict[str, object], as_json: bool) -> None:
    if as_json:
        emit_json(status)
        return
    state = "running" if status["running"] else "stopped"
    typer.echo(f"embedded FalkorDB: {state}")
    for key in ("pid", "socket", "host", "port", "data_dir", "aof_bytes", "password_file"):
        if status.get(key) is not None:
            typer.echo(f"  {key}: {status[key]}")


@app.command()
@handle_errors
def start(as_json: bool = typer.Option(False, "--json", help="Print status as JSON")) -> None:
    """Start the server (no-op when it already runs) and wait until its data is loaded."""
    _print(_server().ensure_running().as_dict(), as_json)


@app.command()
@handle_errors
def stop(as_json: bool = typer.Option(False, "--json", help="Print the result as JSON")) -> None:
    """Stop the server; it flushes its append-only file first."""
    stopped = _server().stop()
    if as_json:
        emit_json({"stopped": stopped})
    else:
        typer.echo("stopped" if stopped else "not running")


@app.command()
@handle_errors
def status(as_json: bool = typer.Option(False, "--json", help="Print status as JSON")) -> None:
    """Say whether the server runs, where, and how much it has stored."""
    _print(_server().status().as_dict(), as_json)
