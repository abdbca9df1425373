"""Neo4j Browser support: the views `graphmem browse` prints, the `:param` values they need,
and the graph style sheet (GraSS) that colours the layers apart and captions every label.

The views are Cypher files under `cypher/browse/`; this module picks the values they show
(a real session, subject, insight, ... of the space), writes each value as a Cypher literal
that cannot break out of its `:param` line, and renders ready-to-paste blocks and Browser URLs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote, urlencode, urlsplit

from .browser_style import (
    NODE_STYLES,
    REL_STYLES,
    NodeStyle,
    RelStyle,
    caption_fields,
    grass,
    post_connect_command,
    render_caption,
    style_command,
    style_sheet,
)
from .errors import InputError, NotFound
from .queries import load_query
from .settings import Settings

if TYPE_CHECKING:
    from .deps import Parts

# the style sheet is part of this module's API too (it lives in browser_style)
__all__ = [
    "LAYERS",
    "NODE_STYLES",
    "REL_STYLES",
    "VIEWS",
    "BrowsePlan",
    "Choices",
    "NodeStyle",
    "RelStyle",
    "View",
    "ViewPlan",
    "browser_target",
    "caption_fields",
    "check_layer",
    "cypher_literal",
    "cypher_string",
    "grass",
    "json_lines",
    "param_line",
    "plan_views",
    "post_connect_command",
    "render_caption",
    "render_plan",
    "style_command",
    "style_sheet",
]

Layer = Literal["conversation", "facts", "insights", "experience"]
LAYERS: tuple[Layer, ...] = ("conversation", "facts", "insights", "experience")
DEFAULT_LIMIT = 50
DEFAULT_BROWSER_URL = "http://localhost:7474/browser/"


@dataclass(frozen=True)
class View:
    """One Browser view: `cypher/browse/<name>.cypher`, showing one `target` node picked by
    `cypher/browse/pick_<target>.cypher`."""

    name: str
    layer: Layer
    target: str
    """The parameter naming the node the view centres on (and the `--<target>` option)."""
    title: str

    @property
    def query(self) -> str:
        return f"browse/{self.name}"

    @property
    def pick_query(self) -> str:
        return f"browse/pick_{self.target}"


VIEWS: tuple[View, ...] = (
    View(
        "conversation_session",
        "conversation",
        "session",
        "a session's turns in order and the entities they mention",
    ),
    View(
        "conversation_entity",
        "conversation",
        "entity",
        "an entity, the turns that mention it and its two-hop RELATES neighbourhood",
    ),
    View(
        "facts_micrograph",
        "facts",
        "subject",
        "a subject's MicroGraph with its evidence (SUPPORTS) paths and version chains",
    ),
    View(
        "insights_edit_trail",
        "insights",
        "insight",
        "an insight's edit trail: revisions, edits and evidence queries",
    ),
    View(
        "experience_trajectory",
        "experience",
        "trajectory",
        "a trajectory's action decision graph, its task and the run it was matched with",
    ),
    View(
        "experience_task",
        "experience",
        "task",
        "a task with its runs and its cross-task (SIMILAR_TASK) edges",
    ),
)


# --- Cypher literals for :param lines ---------------------------------------------------------
_SAFE = re.compile(r"[A-Za-z0-9 _\-.,@+()]")


def cypher_string(value: str) -> str:
    """`value` as a single-quoted Cypher string literal in which every character outside a
    small safe set is a `\\uXXXX` (or `\\UXXXXXXXX`) escape.

    Neo4j Browser evaluates the right-hand side of `:param name => …` as Cypher, cuts it at
    the last `=>`, refuses a `$` in it, and splits the editor on `;`: with quotes, backslashes,
    `=`, `>`, `$`, `;`, `/` and line breaks all escaped, user text stays one literal."""
    out = []
    for char in value:
        if _SAFE.fullmatch(char):
            out.append(char)
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(f"\\U{ord(char):08X}")
    return "'" + "".join(out) + "'"


def cypher_literal(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return cypher_string(value)
    raise TypeError(f"no Cypher literal for {type(value).__name__}")


_PARAM_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def param_line(name: str, value: Any) -> str:
    """`:param name => literal;` — evaluated by the server, so integers stay integers."""
    if not _PARAM_NAME.match(name):
        raise ValueError(f"bad parameter name {name!r}")
    return f":param {name} => {cypher_literal(value)};"


# --- planned views -----------------------------------------------------------------------------
@dataclass(frozen=True)
class ViewPlan:
    """A view with the values it shows: what `graphmem browse` prints for it."""

    view: View
    params: dict[str, Any]
    """In print order: space, the target id, any extra filter, limit."""
    label: str
    """What the target is, for a person: 'session s4 (14 turns)'."""

    def query_text(self) -> str:
        return load_query(self.view.query, "neo4j").strip()

    def param_block(self) -> str:
        """The `:param` lines that set this view's values, one per line."""
        return "\n".join(param_line(name, value) for name, value in self.params.items())

    def block(self) -> str:
        """`:param` lines then the query, every statement `;`-terminated. Browser's
        multi-statement editor runs it as pasted, but a multi-statement run only lists its
        statements: the graph is drawn when the query then runs on its own."""
        return self.param_block() + "\n" + self.query_text() + ";"

    def url(self, base: str, *, dbms: str | None = None, database: str | None = None) -> str:
        """A Neo4j Browser URL that opens with this block in the editor (`cmd=edit` fills
        the editor and runs nothing; the user presses run)."""
        query: dict[str, str] = {}
        if dbms:
            query["dbms"] = dbms
        if database:
            query["db"] = database
        query["cmd"] = "edit"
        query["arg"] = self.block()
        return base + "?" + urlencode(query, quote_via=quote, safe="")

    def as_dict(self) -> dict[str, Any]:
        return {
            "view": self.view.name,
            "layer": self.view.layer,
            "title": self.view.title,
            "target": self.label,
            "params": dict(self.params),
            "param_block": self.param_block(),
            "query": self.query_text(),
            "block": self.block(),
        }


@dataclass(frozen=True)
class Choices:
    """What the user asked to see (`graphmem browse --session S --subject X ...`); None = let
    graphmem pick a representative one."""

    session: str | None = None
    entity: str | None = None
    subject: str | None = None
    category: str | None = None
    insight: str | None = None
    trajectory: str | None = None
    task: str | None = None

    def get(self, target: str) -> str | None:
        value = getattr(self, target)
        return value if isinstance(value, str) else None


_SIZE_WORDS = {
    "session": "turns",
    "entity": "mentions",
    "subject": "units",
    "insight": "edits",
    "trajectory": "steps",
    "task": "runs",
}


@dataclass
class BrowsePlan:
    space: str
    views: list[ViewPlan] = field(default_factory=list)
    empty: list[tuple[View, str]] = field(default_factory=list)
    """Views with nothing to show, and why."""


def check_layer(layer: str | None) -> Layer | None:
    if layer is None:
        return None
    for known in LAYERS:
        if layer == known:
            return known
    raise InputError(f"unknown layer {layer!r}: use {', '.join(LAYERS)}", field="--layer")


def plan_views(
    memory: Parts,
    space: str,
    *,
    layer: Layer | None = None,
    choices: Choices | None = None,
    limit: int = DEFAULT_LIMIT,
) -> BrowsePlan:
    """Pick what each view shows in `space`. A value the user named that does not exist is a
    NotFound; a layer with no data yet is reported in `empty`."""
    if limit < 1:
        raise InputError("must be at least 1", field="--limit")
    choices = choices or Choices()
    memory.require_space(space)
    store = memory.store
    plan = BrowsePlan(space)
    for view in VIEWS:
        if layer is not None and view.layer != layer:
            continue
        wanted = choices.get(view.target)
        rows = store.read(view.pick_query, {"space": space, view.target: wanted})
        if not rows:
            if wanted is not None:
                raise NotFound(f"no {view.target} {wanted!r} in space {space!r}")
            plan.empty.append((view, f"no {view.target} in space {space!r} yet"))
            continue
        row = rows[0]
        ident = str(row["id"])
        params: dict[str, Any] = {"space": space, view.target: ident}
        label = f"{view.target} {_short(str(row.get('name') or ident))}"
        if view.target == "subject":
            params["category"] = _pick_category(memory, space, ident, choices.category)
            if params["category"] is not None:
                label += f", category {params['category']}"
        size = row.get("size")
        if isinstance(size, int | float):
            label += f" ({int(size)} {_SIZE_WORDS[view.target]})"
        params["limit"] = limit
        plan.views.append(ViewPlan(view, params, label))
    return plan


def _pick_category(memory: Parts, space: str, subject: str, wanted: str | None) -> str | None:
    if wanted is None:
        return None
    rows = memory.store.read(
        "browse/pick_category", {"space": space, "subject": subject, "category": wanted}
    )
    if not rows:
        raise NotFound(f"subject {subject!r} has no unit in category {wanted!r}")
    return str(rows[0]["id"])


def _one_line(text: str) -> str:
    """Text for a `//` comment line: no line break may end the comment early."""
    return " ".join(text.split())


def _short(text: str, limit: int = 60) -> str:
    text = _one_line(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


STEP_VALUES = "// 1. run these :param lines: they set the values"
STEP_QUERY = "// 2. then run the query on its own: Browser draws the graph of a query run alone"


def render_plan(plan: BrowsePlan, *, engine: str, urls: Mapping[str, str] | None = None) -> str:
    """The text `graphmem browse` prints: comments, then per view its `:param` lines and its
    query as two steps (a multi-statement run in Browser lists statements, draws nothing)."""
    out = [
        f"// graphmem browse: space {plan.space!r} (values picked on the {engine} engine)",
        "// In Neo4j Browser, per view: run its :param lines, then its query on its own.",
        "// Style: `graphmem neo4j start` and docker/compose.yml load it on connect; elsewhere",
        "// run :style and drop docker/browser-style.grass (or `graphmem browse --style`) on it.",
    ]
    for view, reason in plan.empty:
        out += ["", f"// {view.layer}: {view.title}: {_one_line(reason)}"]
    for item in plan.views:
        out += [
            "",
            f"// {item.view.layer}: {item.view.title}",
            f"// showing {_one_line(item.label)}",
        ]
        if urls is not None:
            out.append(f"// open: {urls[item.view.name]}")
        out += [STEP_VALUES, item.param_block(), STEP_QUERY, item.query_text() + ";"]
    return "\n".join(out) + "\n"


def browser_target(
    settings: Settings, base: str | None = None, *, local_browser: str | None = None
) -> tuple[str, str, str | None]:
    """(Browser URL, connect URL, database) for the configured engine, with no password:
    the connect URL carries the user name, so Browser's connect form asks for the password
    only. Browser is `base` when given, else `local_browser` (the Browser of the local Neo4j
    the URI points at), else http://<neo4j host>:7474/browser/ as a Neo4j server serves it."""
    target = settings.engine()
    if target.engine != "neo4j" or target.uri is None:
        return base or DEFAULT_BROWSER_URL, "neo4j://localhost:7687", settings.database
    parts = urlsplit(target.uri)
    user = parts.username or settings.user
    host = parts.hostname or "localhost"
    if ":" in host:  # IPv6
        host = f"[{host}]"
    netloc = f"{quote(user, safe='')}@{host}" + (f":{parts.port}" if parts.port else "")
    dbms = parts._replace(netloc=netloc).geturl()
    return base or local_browser or f"http://{host}:7474/browser/", dbms, settings.database


def json_lines(plans: Sequence[ViewPlan]) -> list[dict[str, Any]]:
    return [p.as_dict() for p in plans]
