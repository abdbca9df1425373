"""Neo4j Browser's look of a graphmem graph: one colour family per layer, a caption per label
(a Browser template over the label's caption property), and the style sheet as GraSS, as the
JSON `:style` takes, and as the command `browser.post_connect_cmd` runs on connect."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


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
# experience purples, key-value items tan; the central label of each layer is the darkest and
# largest.
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
    "StoreItem": NodeStyle("#C7A47A", "#A98556", "#2A2C34", 45, "item {key}"),
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


def post_connect_command() -> str:
    """The style command for `browser.post_connect_cmd`: Browser adds the leading colon to
    each command it runs on connect, so the setting holds `style {json}`."""
    return style_command().removeprefix(":")
