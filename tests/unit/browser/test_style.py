"""The Browser style sheet and the compose setup: the shipped GraSS parses the way Browser
parses it, styles and captions every label and relationship type, and compose applies it."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from graphmem_neo4j import ogm
from graphmem_neo4j.browse import (
    NODE_STYLES,
    REL_STYLES,
    caption_fields,
    grass,
    post_connect_command,
    render_caption,
    style_command,
    style_sheet,
)
from graphmem_neo4j.schema import LAYERS, labels, relationships

from .oracles import parse_grass, split_post_connect

REPO = Path(__file__).resolve().parents[3]
GRASS = REPO / "docker" / "browser-style.grass"
COMPOSE = REPO / "docker" / "compose.yml"


def test_the_shipped_grass_is_the_generated_one_and_parses_like_browser_reads_it() -> None:
    assert GRASS.read_text(encoding="utf-8") == grass(), (
        "docker/browser-style.grass is stale: run `graphmem browse --style > "
        "docker/browser-style.grass`"
    )
    assert parse_grass(GRASS.read_text(encoding="utf-8")) == style_sheet()


def test_every_label_has_its_own_colour_and_a_caption_on_its_declared_property() -> None:
    sheet = parse_grass(GRASS.read_text(encoding="utf-8"))
    registry = labels()
    assert set(NODE_STYLES) == set(registry)
    colours = [sheet[f"node.{name}"]["color"] for name in registry]
    assert len(set(colours)) == len(colours)
    for name, label in registry.items():
        rule = sheet[f"node.{name}"]
        assert {"color", "border-color", "text-color-internal", "diameter", "caption"} <= set(rule)
        fields = caption_fields(rule["caption"])
        assert label.caption in fields, (name, rule["caption"])
        cls = next(c for c in ogm.NODE_CLASSES if c.__label__ == name)
        declared = {
            p.get_db_property_name(n)
            for n, p in cls.defined_properties(aliases=False, rels=False).items()
        }
        assert set(fields) <= declared, (name, fields)


def test_layers_are_coloured_apart() -> None:
    """No colour is shared between two layers' labels."""
    by_layer = {
        layer.layer: {NODE_STYLES[label.name].color for label in layer.labels} for layer in LAYERS
    }
    seen: dict[str, str] = {}
    for layer, colours in by_layer.items():
        for colour in colours:
            assert seen.setdefault(colour, layer) == layer, (colour, layer, seen[colour])


def test_every_relationship_type_is_styled() -> None:
    sheet = style_sheet()
    assert set(REL_STYLES) == set(relationships())
    for name in relationships():
        assert sheet[f"relationship.{name}"]["caption"]


def test_no_declaration_holds_what_breaks_browsers_parser() -> None:
    for selector, props in style_sheet().items():
        for key, value in props.items():
            assert not set(value) & set(":;'\""), (selector, key, value)


def test_render_caption_follows_browser_interpolation() -> None:
    assert render_caption("{speaker} · {text}", {"speaker": "Maya", "text": "Hi"}) == "Maya · Hi"
    assert render_caption("{a}|{b}|{c}", {"a": ["x", "y"], "b": 3}) == "x, y|3|"
    assert render_caption("{position} · {action}", {"position": 0, "action": "go"}) == "0 · go"


def test_compose_starts_neo4j_with_browser_bolt_and_the_style() -> None:
    doc = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    neo4j = doc["services"]["neo4j"]
    assert neo4j["image"].startswith("neo4j:5")
    assert set(neo4j["ports"]) == {"127.0.0.1:7474:7474", "127.0.0.1:7687:7687"}
    env = neo4j["environment"]
    assert env["NEO4J_AUTH"].startswith("neo4j/")
    volumes = neo4j["volumes"]
    assert any(v.endswith(":/data") for v in volumes)
    mounted = [v.split(":")[0] for v in volumes if v.startswith("./")]
    for source in mounted:
        assert (COMPOSE.parent / source).is_file(), source
    assert "./browser-style.grass" in mounted
    assert set(doc["volumes"]) == {"graphmem-neo4j-data"}
    # Browser runs the post-connect command after splitting it on ';' outside quotes: it must
    # stay one `style {json}` command whose JSON is exactly the shipped style.
    commands = split_post_connect(env["NEO4J_browser_post__connect__cmd"])
    assert len(commands) == 1
    verb, payload = commands[0].split(" ", 1)
    assert verb == "style"
    assert json.loads(payload) == style_sheet()
    assert style_command() == ":style " + json.dumps(
        style_sheet(), ensure_ascii=False, separators=(",", ":")
    )


def test_the_post_connect_command_is_the_style_command_browser_gets_by_adding_a_colon() -> None:
    command = post_connect_command()
    assert not command.startswith(":")  # Browser runs ":" + each post-connect command
    assert split_post_connect(command) == [command]
    assert ":" + command == style_command()
