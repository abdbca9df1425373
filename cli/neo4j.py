"""`graphmem neo4j install|start|stop|status|env`: a local Neo4j Community server without Docker,
run by Java from the `neo4j-local/` Maven module (built by `make setup` in a checkout; from an
installed wheel, by `install` or the first `start`, into GRAPHMEM_HOME/neo4j-local)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from .common import JSON, emit_json, handle_errors, settings

if TYPE_CHECKING:
    from graphmem_neo4j.store.local_neo4j import LocalNeo4j

app = typer.Typer(
    rich_markup_mode=None,  # plain help, see main.py
    help="Run a local Neo4j Community (5.26 LTS, or 2026 with --line 2026; embedded in a JVM "
    "with Bolt on 127.0.0.1) for users with Java but no Docker, with Neo4j Browser on "
    "http://127.0.0.1:7474/browser/ styled for graphmem. Data and a generated password live "
    "in GRAPHMEM_HOME/neo4j (neo4j-2026 for the 2026 line); "
    "`start` prints what to export to point graphmem at it.",
    no_args_is_help=True,
)

PORT = typer.Option(
    7687, "--port", "-p", help="Bolt port on 127.0.0.1", envvar="GRAPHMEM_NEO4J_PORT"
)
LINE = typer.Option(
    "5.26",
    "--line",
    "--version",
    envvar="GRAPHMEM_NEO4J_LINE",
    help="Neo4j release line: 5.26 (LTS, Java 17 or 21) or 2026 (2026.08.1, Java 21+, "
    "Cypher 25's vector SEARCH with an in-index space filter); a version such as 2026.08.1 "
    "names its line. Each line keeps its own data folder",
)


def _server(port: int, http_port: int | None = None, line: str | None = None) -> LocalNeo4j:
    from graphmem_neo4j.store.local_neo4j import LocalNeo4j, line_named

    post_connect = None
    if http_port is not None:
        from graphmem_neo4j.browse import post_connect_command

        post_connect = post_connect_command()
    from graphmem_neo4j.store.local_neo4j import module_dir

    home = settings().home
    chosen = line_named(line)
    return LocalNeo4j(
        home / chosen.folder,
        port,
        http_port=http_port,
        post_connect=post_connect,
        module=module_dir(home),
        line=chosen,
    )


def _announce_build(module: Path) -> None:
    """One line on stderr before Maven runs: the first build takes minutes."""
    typer.echo(
        f"building the local Neo4j in {module} with Maven (the first time it downloads the "
        "Neo4j jars into ~/.m2: a few minutes)",
        err=True,
    )


@app.command()
@handle_errors
def install(line: str = LINE, as_json: bool = JSON) -> None:
    """Build the local Neo4j once (also done by the first `start`): copy its Maven module into
    GRAPHMEM_HOME/neo4j-local (a source checkout builds neo4j-local/ in place) and run
    `mvn package`, which resolves Neo4j's jars into ~/.m2. Needs Maven 3 and the line's Java
    (5.26: 17 or 21; 2026: 21+); later starts need Java only. Does nothing when it is built
    already."""
    from graphmem_neo4j.store import local_neo4j

    chosen = local_neo4j.line_named(line)
    module = local_neo4j.module_dir(settings().home)
    built = local_neo4j.is_built(module, chosen)
    if not built and local_neo4j.unavailable_reason(module, chosen) is None:
        _announce_build(module)
    local_neo4j.install(module, chosen)
    if as_json:
        emit_json(
            {
                "module": str(module),
                "line": chosen.name,
                "version": chosen.version,
                "built_now": not built,
            }
        )
    else:
        state = "built" if not built else "already built"
        typer.echo(f"local Neo4j {chosen.version} {state} in {module}")


def _exports(uri: str, password_file: Path) -> str:
    return f'export GRAPHMEM_URI={uri} GRAPHMEM_PASSWORD="$(cat {password_file})"'


@app.command()
@handle_errors
def env(port: int = PORT, line: str = LINE) -> None:
    """Print the shell lines that point graphmem at the local Neo4j (its URI and password):
    `eval "$(graphmem neo4j env)"`. Exit 3 when it is not running."""
    import shlex

    from graphmem_neo4j.errors import EngineUnavailable

    server = _server(port, line=line)
    status = server.status()
    if not status.running:
        raise EngineUnavailable(
            f"no local Neo4j runs on port {port} for this GRAPHMEM_HOME: `graphmem neo4j start`"
        )
    typer.echo(f"export GRAPHMEM_URI={status.uri}")
    typer.echo(f"export GRAPHMEM_PASSWORD={shlex.quote(server.password())}")


@app.command()
@handle_errors
def start(
    port: int = PORT,
    http_port: int = typer.Option(
        7474,
        "--http-port",
        envvar="GRAPHMEM_NEO4J_HTTP_PORT",
        help="Neo4j Browser (and Neo4j's HTTP API) on this port of 127.0.0.1; 0: none",
        min=0,
        max=65535,
    ),
    heap: str = typer.Option("1g", "--heap", help="JVM heap (java -Xmx)"),
    line: str = LINE,
    warm: bool = typer.Option(
        True,
        "--warm/--no-warm",
        help="Plan every graphmem query once after start (EXPLAIN, nothing runs), so that "
        "the first ingest or search does not pay the planner's cold start",
    ),
    as_json: bool = JSON,
) -> None:
    """Start the server in the background (no-op when it already runs) and wait until Bolt
    accepts connections. The password is GRAPHMEM_PASSWORD when set, else generated.

    Neo4j's own web server serves Neo4j Browser (5.24, from Maven Central, resolved by
    `make setup`) on --http-port; it applies graphmem's style sheet every time it connects,
    and `graphmem browse --open` prints URLs for it."""
    server = _server(port, http_port or None, line)
    server.heap = heap
    current = settings()
    if current.password is not None:
        server.password(current.password.get_secret_value())
    from graphmem_neo4j.store.local_neo4j import is_built, unavailable_reason

    module = server.module
    if not (
        server.status().running
        or is_built(module, server.line)
        or unavailable_reason(module, server.line)
    ):
        _announce_build(module)
    status = server.start(detach=True)
    planned = _warm(status.uri, server.password()) if warm else 0
    if as_json:
        emit_json({**status.as_dict(), "planned_queries": planned})
        return
    typer.echo(
        f"local Neo4j {server.line.version} running at {status.uri} "
        f"(pid {status.pid}, data {status.data_dir})"
    )
    if warm:
        typer.echo(f"planned {planned} graphmem queries (the first commands run warm)")
    if status.browser_url is not None:
        typer.echo(f"Neo4j Browser: {status.browser_url} (user neo4j, the password below)")
    line = "" if server.line.name == "5.26" else f" --line {server.line.name}"
    typer.echo(f'point graphmem at it with:  eval "$(graphmem neo4j env{line})"')
    typer.echo(f"  or:  {_exports(status.uri, server.password_file)}")


def _warm(uri: str, password: str) -> int:
    from graphmem_neo4j.settings import parse_uri
    from graphmem_neo4j.store.neo4j_store import Neo4jStore

    store = Neo4jStore(parse_uri(uri), user="neo4j", password=password)
    try:
        return store.warm()
    finally:
        store.close()


@app.command()
@handle_errors
def stop(port: int = PORT, line: str = LINE, as_json: bool = JSON) -> None:
    """Stop the server cleanly (Neo4j checkpoints its store first)."""
    stopped = _server(port, line=line).stop()
    if as_json:
        emit_json({"stopped": stopped})
    else:
        typer.echo("stopped" if stopped else "not running")


@app.command()
@handle_errors
def status(port: int = PORT, line: str = LINE, as_json: bool = JSON) -> None:
    """Say whether the local Neo4j runs, where, and where its data and log are."""
    report = _server(port, line=line).status().as_dict()
    if as_json:
        emit_json(report)
        return
    typer.echo(f"local Neo4j: {'running' if report['running'] else 'stopped'}")
    for key in ("pid", "uri", "browser_url", "data_dir", "password_file", "log_file"):
        if report.get(key) is not None:
            typer.echo(f"  {key}: {report[key]}")
