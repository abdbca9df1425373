"""`graphmem`: the command line. Heavy modules (torch, drivers) load inside commands only, so
`graphmem --help` stays instant."""

from __future__ import annotations

from pathlib import Path

import typer

from . import (
    admin,
    browse,
    conversation,
    examples,
    experience,
    facts,
    insights,
    llm,
    migrate,
    neo4j,
    recall,
    serve,
    server,
)
from .common import STATE

app = typer.Typer(
    rich_markup_mode=None,  # plain help: rich's renderer costs ~0.1 s of imports per call
    name="graphmem",
    help="Graph memory for LLM agents on Neo4j or an embedded FalkorDB.\n\n"
    "With GRAPHMEM_URI unset everything runs on an embedded FalkorDB under ~/.graphmem, started "
    "on first use. Point GRAPHMEM_URI at neo4j://host:7687 (with GRAPHMEM_PASSWORD) for Neo4j.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def main(
    uri: str | None = typer.Option(
        None,
        "--uri",
        help="Engine URI; unset = embedded FalkorDB [env: GRAPHMEM_URI]",
        show_default=False,
    ),
    database: str | None = typer.Option(
        None,
        "--database",
        help="Neo4j database or FalkorDB graph [env: GRAPHMEM_DATABASE]",
        show_default=False,
    ),
    home: Path | None = typer.Option(
        None,
        "--home",
        help="Embedded server data and secrets [env: GRAPHMEM_HOME]",
        show_default=False,
    ),
) -> None:
    overrides = {"uri": uri, "database": database, "home": home}
    STATE.overrides = {k: v for k, v in overrides.items() if v is not None}
    STATE.memory = None


app.add_typer(server.app, name="server")
app.add_typer(neo4j.app, name="neo4j")
app.add_typer(llm.app, name="llm")
admin.register(app)
conversation.register(app)
facts.register(app)
insights.register(app)
experience.register(app)
recall.register(app)
browse.register(app)
migrate.register(app)
serve.register(app)
examples.register(app)


def _one_line_summaries(typer_app: typer.Typer) -> None:
    """Command lists show a docstring's first paragraph; Typer keeps its hard line breaks,
    which then break the table's columns. Join them."""
    for command in typer_app.registered_commands:
        doc = command.help or (command.callback.__doc__ if command.callback else None)
        if command.short_help is None and doc:
            command.short_help = " ".join(doc.strip().split("\n\n")[0].split())
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _one_line_summaries(group.typer_instance)


_one_line_summaries(app)


def run() -> None:
    app()
