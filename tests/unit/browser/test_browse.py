"""`graphmem browse` without a database: literals, blocks, URLs, and the Neo4j analyser on
exactly what is printed."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem_neo4j.browse import (
    STEP_QUERY,
    STEP_VALUES,
    VIEWS,
    BrowsePlan,
    View,
    ViewPlan,
    browser_target,
    check_layer,
    cypher_literal,
    cypher_string,
    param_line,
    render_plan,
)
from graphmem_neo4j.errors import InputError
from graphmem_neo4j.queries import load_query
from graphmem_neo4j.settings import Settings
from tests.unit.test_cypher_lint import lint

from .oracles import decode_cypher_string

NASTY = [
    "it's",
    'say "hi"',
    "back\\slash",
    "x'}) MATCH (n) DETACH DELETE n //",
    "a => b; :param x => 1",
    "$space",
    "line\nbreak\ttab",
    "Zoë's café ☕",
    "emoji 😀",
    "",
]


@given(st.text())
def test_a_string_literal_round_trips_and_cannot_break_out(value: str) -> None:
    literal = cypher_string(value)
    assert decode_cypher_string(literal) == value
    body = literal[1:-1]
    # Browser cuts `:param` at the last '=>', refuses '$', splits statements on ';'.
    for forbidden in ("'", '"', ";", "=", ">", "$", "\n", "\r", "/", "{", "}"):
        assert forbidden not in body
    assert re.fullmatch(r"(?:[A-Za-z0-9 _\-.,@+()]|\\u[0-9A-F]{4}|\\U[0-9A-F]{8})*", body)


def test_readable_values_stay_readable() -> None:
    assert cypher_string("session s1-t02") == "'session s1-t02'"
    assert cypher_string("it's") == "'it\\u0027s'"
    assert cypher_string("😀") == "'\\U0001F600'"


def test_other_literals() -> None:
    assert cypher_literal(None) == "null"
    assert cypher_literal(50) == "50"
    assert cypher_literal(True) == "true"
    with pytest.raises(TypeError):
        cypher_literal(1.5)
    assert param_line("limit", 50) == ":param limit => 50;"
    with pytest.raises(ValueError):
        param_line("x => 1; MATCH", 1)


def _plan(view_name: str, target_value: str, space: str = "demo") -> ViewPlan:
    view = next(v for v in VIEWS if v.name == view_name)
    params: dict[str, object] = {"space": space, view.target: target_value}
    if view.target == "subject":
        params["category"] = target_value
    params["limit"] = 7
    return ViewPlan(view, params, f"{view.target} {target_value}")


def _query_params(text: str) -> set[str]:
    code = "\n".join(line.split("//")[0] for line in text.splitlines())
    return set(re.findall(r"\$([A-Za-z_][A-Za-z0-9_]*)", code))


@pytest.mark.parametrize("view", VIEWS, ids=[v.name for v in VIEWS])
def test_a_block_sets_exactly_the_parameters_its_query_uses(view: View) -> None:
    plan = _plan(view.name, "s1")
    assert _query_params(plan.query_text()) == set(plan.params)
    assert "space" in plan.params  # every view filters on its space
    lines = plan.block().splitlines()
    assert lines[: len(plan.params)] == [param_line(k, v) for k, v in plan.params.items()]
    assert plan.block().endswith(plan.query_text() + ";")
    pick = load_query(view.pick_query, "neo4j")
    assert _query_params(pick) == {"space", view.target}


def test_the_printed_output_passes_the_neo4j_analyser() -> None:
    """Everything `graphmem browse` prints, as one Browser editor buffer (:param lines and
    all), and each query alone, with values that try to break out of their literal."""
    plans = [_plan(v.name, NASTY[i % len(NASTY)], space="t-1") for i, v in enumerate(VIEWS)]
    plan = BrowsePlan("t-1", plans, [(VIEWS[0], "no session in space 't-1' yet")])
    printed = render_plan(plan, engine="falkordb", urls={p.view.name: "http://x/" for p in plans})
    queries = {f"query:{p.view.name}": p.query_text() for p in plans}
    report = lint({"printed": printed, **queries})
    assert report == {name: [] for name in report}, report
    # The analyser is not accepting anything: the same buffer with a `;` dropped fails.
    broken = printed.replace(";\n:param limit", "\n:param limit", 1)
    assert broken != printed
    assert lint({"broken": broken})["broken"]


def test_comment_lines_cannot_be_ended_early() -> None:
    injected = "s1\nMATCH (n) DETACH DELETE n\u2028RETURN 1"
    plan = BrowsePlan("demo", [ViewPlan(VIEWS[0], {"space": "demo"}, injected)])
    printed = render_plan(plan, engine="neo4j")
    for line in printed.splitlines():
        assert "DETACH DELETE" not in line or line.startswith("// showing s1 MATCH")


def test_a_browser_url_opens_the_block_in_the_editor_and_carries_no_secret() -> None:
    plan = _plan("facts_micrograph", "it's; => $x")
    settings = Settings(uri="neo4j://alice:s3cret@db.example:7687", database="mem")
    base, dbms, database = browser_target(settings)
    url = plan.url(base, dbms=dbms, database=database)
    assert base == "http://db.example:7474/browser/"
    assert "s3cret" not in url and "\n" not in url and " " not in url
    query = parse_qs(urlsplit(url).query)
    assert query["cmd"] == ["edit"]
    assert query["arg"] == [plan.block()]
    assert query["dbms"] == ["neo4j://alice@db.example:7687"]  # Browser fills in the user
    assert query["db"] == ["mem"]


def test_browser_target_for_the_embedded_engine_and_an_explicit_url() -> None:
    assert browser_target(Settings()) == (
        "http://localhost:7474/browser/",
        "neo4j://localhost:7687",
        None,
    )
    assert browser_target(Settings(), "https://b.example/browser/")[0] == (
        "https://b.example/browser/"
    )


def test_the_connect_url_names_the_configured_user_and_the_local_browser_is_preferred() -> None:
    settings = Settings(uri="bolt://127.0.0.1:7690", user="reader", password="pw")
    local = "http://127.0.0.1:7475/browser/"
    assert browser_target(settings, local_browser=local) == (
        local,
        "bolt://reader@127.0.0.1:7690",
        None,
    )
    assert browser_target(settings)[0] == "http://127.0.0.1:7474/browser/"
    assert browser_target(settings, "http://b/", local_browser=local)[0] == "http://b/"


def test_each_view_prints_its_values_then_its_query_as_two_steps() -> None:
    plans = [ViewPlan(v, {"space": "demo", v.target: "x", "limit": 5}, "x") for v in VIEWS]
    printed = render_plan(BrowsePlan("demo", plans), engine="neo4j")
    chunks = printed.split("\n\n")[1:]
    assert len(chunks) == len(plans)
    for chunk, plan in zip(chunks, plans, strict=True):
        lines = chunk.splitlines()
        values, query = lines.index(STEP_VALUES), lines.index(STEP_QUERY)
        assert "\n".join(lines[values + 1 : query]) == plan.param_block()
        assert "\n".join(lines[query + 1 :]) == plan.query_text() + ";"
        assert plan.block() == plan.param_block() + "\n" + plan.query_text() + ";"


def test_layers_are_checked() -> None:
    assert check_layer(None) is None
    assert check_layer("facts") == "facts"
    with pytest.raises(InputError, match="--layer"):
        check_layer("Facts")


def test_views_cover_every_layer_and_their_files_exist() -> None:
    assert {v.layer for v in VIEWS} == {"conversation", "facts", "insights", "experience"}
    for view in VIEWS:
        assert load_query(view.query, "neo4j") == load_query(view.query, "falkordb")
        assert "$space" in load_query(view.pick_query, "neo4j")
