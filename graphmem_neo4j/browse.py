"""Neo4j Browser support: the views `graphmem browse` prints, the `:param` values they need,
and the graph style sheet (GraSS) that colours the layers apart and captions every label.

The views are Cypher files under `cypher/browse/`; this module picks the values they show
(a real session, subject, insight, ... of the space), writes each value as a Cypher literal
that cannot break out of its `:param` line, and renders ready-to-paste blocks and Browser URLs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote, urlencode, urlsplit

from .errors import InputError, NotFound
from .queries import load_query
from .settings import Settings, redact_uri

if TYPE_CHECKING:
    from .memory import GraphMemory

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

    def block(self) -> str:
        """`:param` lines then the query, `;`-terminated: Neo4j Browser's multi-statement
        editor (its default) runs the whole block as pasted."""
        lines = [param_line(name, value) for name, value in self.params.items()]
        return "\n".join([*lines, self.query_text() + ";"])

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
    memory: GraphMemory,
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


def _pick_category(memory: GraphMemory, space: str, subject: str, wanted: str | None) -> str | None:
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


def render_plan(plan: BrowsePlan, *, engine: str, urls: Mapping[str, str] | None = None) -> str:
    """The text `graphmem browse` prints: comments, then one block per view."""
    out = [
        f"// graphmem browse: space {plan.space!r} (values picked on the {engine} engine)",
        "// Paste a block into Neo4j Browser and run it; the :param lines set the values.",
        "// Style: docker/compose.yml loads it on connect; elsewhere run :style and drop",
        "// docker/browser-style.grass (or the output of `graphmem browse --style`) on it.",
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
        out.append(item.block())
    return "\n".join(out) + "\n"


def browser_target(settings: Settings, base: str | None = None) -> tuple[str, str, str | None]:
    """(Browser URL, connect URL, database) for the configured engine, with no credentials:
    Neo4j at host H is assumed to serve Browser at http://H:7474/browser/."""
    target = settings.engine()
    if target.engine != "neo4j" or target.uri is None:
        return base or DEFAULT_BROWSER_URL, "neo4j://localhost:7687", settings.database
    dbms = redact_uri(target.uri)
    host = urlsplit(dbms).hostname or "localhost"
    if ":" in host:  # IPv6
        host = f"[{host}]"
    return base or f"http://{host}:7474/browser/", dbms, settings.database


# --- captions and the style sheet --------------------------------------------------------------
@dataclass(frozen=True)
class NodeStyle:
    color: str
    border: str
    text: str
    diameter: int
    caption: str
    """A Browser caption template: `{prop}` is replaced by the node's property."""


@dataclass(frozen=True)
class RelStyle:
    color: str
    caption: str = "<type>"
    width: int = 1


# One colour family per layer: conversation blues, facts greens, insights ambers/reds,
# experience purples; the central label of each layer is the darkest and largest.
NODE_STYLES: dict[str, NodeStyle] = {
    "Space": NodeStyle("#A5ABB6", "#9AA1AC", "#FFFFFF", 40, "{id}"),
    "Session": NodeStyle("#1F5FA8", "#174A84", "#FFFFFF", 65, "session {id}"),
    "Turn": NodeStyle("#4C8EDA", "#2870C2", "#FFFFFF", 55, "{speaker} · {text}"),
    "Entity": NodeStyle("#57C7E3", "#23B3D7", "#2A2C34", 45, "{name}"),
    "ForgetRun": NodeStyle(
        "#8FA8C8", "#6F8CB2", "#2A2C34", 40, "forgetting at turn {at_turn} · {id}"
    ),
    "Forgotten": NodeStyle("#C9D6E8", "#A9BCD6", "#2A2C34", 40, "{summary}"),
    "Subject": NodeStyle("#2E7D4F", "#23613D", "#FFFFFF", 65, "{name}"),
    "Category": NodeStyle("#5DB665", "#459A4D", "#FFFFFF", 50, "{name}"),
    "Context": NodeStyle("#A8D5A2", "#86C27E", "#2A2C34", 45, "{name}"),
    "MemoryUnit": NodeStyle("#8DCC93", "#5DB665", "#2A2C34", 60, "{text} · {status}"),
    "Query": NodeStyle("#F79767", "#F36924", "#FFFFFF", 55, "{text}"),
    "InteractionStep": NodeStyle("#FFC454", "#D7A013", "#2A2C34", 40, "{position} · {action}"),
    "Insight": NodeStyle("#D9480F", "#B03A0C", "#FFFFFF", 65, "{text}"),
    "InsightEdit": NodeStyle("#FBD38D", "#E8B04B", "#2A2C34", 40, "{operation} · {query_id}"),
    "Task": NodeStyle("#6A3D9A", "#552F7C", "#FFFFFF", 65, "{text}"),
    "Trajectory": NodeStyle("#A872C4", "#8E55AD", "#FFFFFF", 55, "{source_id} · {caption}"),
    "Action": NodeStyle("#D4B3E6", "#B98ED3", "#2A2C34", 45, "{raw}"),
}

_BLUE, _GREEN, _AMBER, _PURPLE = "#4C8EDA", "#5DB665", "#F36924", "#8E55AD"
REL_STYLES: dict[str, RelStyle] = {
    "HAS_TURN": RelStyle(_BLUE),
    "NEXT": RelStyle(_BLUE, width=2),
    "MENTIONS": RelStyle("#9BC4EC", "{surface}"),
    "RELATES": RelStyle("#23B3D7", "{type}", 2),
    "SUBJECT_OF": RelStyle(_GREEN),
    "CATEGORY_OF": RelStyle(_GREEN),
    "CONTEXT_OF": RelStyle(_GREEN),
    "SUPPORTS": RelStyle("#23613D", width=3),
    "SUPERSEDES": RelStyle("#7F8C8D", width=2),
    "CONTESTS": RelStyle("#E74C3C", width=2),
    "SIMILAR_QUERY": RelStyle("#F8B58F"),
    "HAS_INTERACTION": RelStyle(_AMBER),
    "NEXT_INTERACTION": RelStyle("#D7A013", width=2),
    "POSITIVE": RelStyle("#2E7D4F", width=2),
    "NEGATIVE": RelStyle("#E74C3C", width=2),
    "CONTEXTUALIZES": RelStyle("#F79767"),
    "REVISED_FROM": RelStyle("#B03A0C", width=3),
    "RETRIEVED": RelStyle("#FBD38D"),
    "EDIT_OF": RelStyle("#E8B04B"),
    "OF_TASK": RelStyle(_PURPLE),
    "HAS_ACTION": RelStyle("#D4B3E6"),
    "NEXT_ACTION": RelStyle("#552F7C", "{observation}", 2),
    "MATCHED_TO": RelStyle("#A872C4", width=3),
    "SIMILAR_TASK": RelStyle("#6A3D9A", width=2),
}

_TEMPLATE_FIELD = re.compile(r"\{([^{}]*)\}")


def caption_fields(template: str) -> list[str]:
    return _TEMPLATE_FIELD.findall(template)


def render_caption(template: str, props: Mapping[str, Any]) -> str:
    """What Browser draws for a caption template: each `{prop}` becomes the property's value
    (lists joined with ', ', missing or other types empty)."""

    def value(match: re.Match[str]) -> str:
        found = props.get(match.group(1))
        if isinstance(found, list):
            return ", ".join(str(v) for v in found)
        if isinstance(found, bool):
            return ""
        if isinstance(found, str | int | float):
            return str(found)
        return ""

    return _TEMPLATE_FIELD.sub(value, template)


def style_sheet() -> dict[str, dict[str, str]]:
    """The style as Browser keeps it: selector → properties (what `:style {json}` takes)."""
    sheet: dict[str, dict[str, str]] = {
        "node": {
            "diameter": "50px",
            "color": "#A5ABB6",
            "border-color": "#9AA1AC",
            "border-width": "2px",
            "text-color-internal": "#FFFFFF",
            "font-size": "10px",
        },
        "relationship": {
            "color": "#A5ABB6",
            "shaft-width": "1px",
            "font-size": "8px",
            "padding": "3px",
            "text-color-external": "#000000",
            "text-color-internal": "#FFFFFF",
            "caption": "<type>",
        },
    }
    for label, node in NODE_STYLES.items():
        sheet[f"node.{label}"] = {
            "color": node.color,
            "border-color": node.border,
            "text-color-internal": node.text,
            "diameter": f"{node.diameter}px",
            "caption": node.caption,
        }
    for rel_type, rel in REL_STYLES.items():
        sheet[f"relationship.{rel_type}"] = {
            "color": rel.color,
            "shaft-width": f"{rel.width}px",
            "caption": rel.caption,
        }
    return sheet


def grass() -> str:
    """The style sheet in GraSS, as `docker/browser-style.grass` ships it. Browser's GraSS
    parser knows no comments and splits a declaration on ':' and ';' (so no caption holds
    either); a caption is quoted so its `{prop}` braces survive."""
    lines: list[str] = []
    for selector, props in style_sheet().items():
        lines.append(f"{selector} {{")
        for key, value in props.items():
            shown = f"'{value}'" if key == "caption" else value
            lines.append(f"  {key}: {shown};")
        lines.append("}")
    return "\n".join(lines) + "\n"


def style_command() -> str:
    """One line for Browser's editor (or `browser.post_connect_cmd`): `:style {json}`. JSON
    has no ';' outside strings, so neither the editor nor post_connect_cmd splits it."""
    return ":style " + json.dumps(style_sheet(), ensure_ascii=False, separators=(",", ":"))


def json_lines(plans: Sequence[ViewPlan]) -> list[dict[str, Any]]:
    return [p.as_dict() for p in plans]
