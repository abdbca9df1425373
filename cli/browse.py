"""`graphmem browse`: ready-to-paste Cypher for looking at a space in Neo4j Browser."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from .common import emit_json, handle_errors, open_memory, resolve_space, settings

if TYPE_CHECKING:
    from graphmem_neo4j.settings import Settings

HELP_ID = "Show this {what} (id or name); default: a representative one"


def register(app: typer.Typer) -> None:
    """Add these commands to the `graphmem` app."""
    app.command("browse")(browse)


@handle_errors
def browse(
    space: str | None = typer.Option(
        None, "--space", "-s", help="Memory space [env: GRAPHMEM_SPACE]"
    ),
    layer: str | None = typer.Option(
        None, "--layer", "-l", help="Only this layer: conversation, facts, insights, experience"
    ),
    session: str | None = typer.Option(None, "--session", help=HELP_ID.format(what="session")),
    entity: str | None = typer.Option(None, "--entity", help=HELP_ID.format(what="entity")),
    subject: str | None = typer.Option(None, "--subject", help=HELP_ID.format(what="subject")),
    category: str | None = typer.Option(
        None, "--category", help="Narrow the subject's MicroGraph to one category"
    ),
    insight: str | None = typer.Option(None, "--insight", help=HELP_ID.format(what="insight")),
    trajectory: str | None = typer.Option(
        None, "--trajectory", help=HELP_ID.format(what="trajectory (id or source id)")
    ),
    task: str | None = typer.Option(None, "--task", help=HELP_ID.format(what="task (id or text)")),
    limit: int = typer.Option(50, "--limit", help="At most this many rows per view"),
    open_urls: bool = typer.Option(
        False,
        "--open",
        help="Also print, per view, a Neo4j Browser URL that opens connected to the configured "
        "Neo4j (it asks for the password) with the view's :param lines and query in the editor",
    ),
    browser_url: str | None = typer.Option(
        None,
        "--browser-url",
        envvar="GRAPHMEM_BROWSER_URL",
        help="Neo4j Browser address for --open [default: the Browser of the local Neo4j "
        "(`graphmem neo4j start`) GRAPHMEM_URI points at, else http://<neo4j host>:7474/browser/]",
    ),
    style: bool = typer.Option(
        False,
        "--style",
        help="Print the Browser style sheet (GraSS) instead; with --json the `:style` JSON",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text"),
) -> None:
    """Print Cypher to paste into Neo4j Browser, one block per view: a conversation session's
    turns and entities, an entity's neighbourhood, a subject's MicroGraph with its evidence
    paths, an insight's edit trail, a trajectory's action decision graph, a task's runs and
    cross-task edges.

    Each block starts with `:param` lines holding the values (a real session, subject, ... of
    the space, or the ones you name) and then the query; Browser's multi-statement editor runs
    it as pasted. Values are escaped Cypher literals, never spliced into the query text. The
    values are read from the configured engine (the embedded one too, before you migrate);
    nothing is written.
    """
    from graphmem_neo4j import browse as views

    if style:
        if as_json:
            emit_json(views.style_sheet())
        else:
            typer.echo(views.grass(), nl=False)
        return
    current = settings()
    memory = open_memory()
    choices = views.Choices(
        session=session,
        entity=entity,
        subject=subject,
        category=category,
        insight=insight,
        trajectory=trajectory,
        task=task,
    )
    plan = views.plan_views(
        memory,
        resolve_space(space),
        layer=views.check_layer(layer),
        choices=choices,
        limit=limit,
    )
    urls: dict[str, str] | None = None
    if open_urls:
        base, dbms, database = views.browser_target(
            current, browser_url, local_browser=_local_browser(current)
        )
        urls = {p.view.name: p.url(base, dbms=dbms, database=database) for p in plan.views}
    if as_json:
        items = []
        for item in plan.views:
            data = item.as_dict()
            if urls is not None:
                data["url"] = urls[item.view.name]
            items.append(data)
        emit_json(
            {
                "space": plan.space,
                "views": items,
                "empty": [{"view": v.name, "reason": why} for v, why in plan.empty],
            }
        )
        return
    typer.echo(views.render_plan(plan, engine=memory.store.dialect, urls=urls), nl=False)


def _local_browser(current: Settings) -> str | None:
    """The Browser of the local Neo4j (`graphmem neo4j start`) GRAPHMEM_URI points at."""
    from graphmem_neo4j.store.local_neo4j import DEFAULT_PORT, HOST, LocalNeo4j

    target = current.engine()
    if target.engine != "neo4j" or target.host not in (HOST, "localhost"):
        return None
    port = target.port or DEFAULT_PORT
    status = LocalNeo4j(current.home / "neo4j", port).status()
    return status.browser_url if status.running and status.port == port else None
