"""`graphmem browse` end to end on a populated space: what it prints passes Neo4j's analyser,
user text stays inside its literals, and bad input is one clear line."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from typer.testing import CliRunner

from graphmem_neo4j.browse import VIEWS, grass, style_sheet
from graphmem_neo4j.cli.main import app
from tests.unit.test_cypher_lint import lint

from .conftest import ODD_SESSION, Populated, read_graph

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def cli(populated: Populated, monkeypatch: pytest.MonkeyPatch) -> Populated:
    settings = populated.settings
    env = {"GRAPHMEM_EMBEDDER": "hash", "GRAPHMEM_SPACE": populated.space}
    if settings.uri:
        env |= {"GRAPHMEM_URI": settings.uri, "GRAPHMEM_USER": settings.user}
        if settings.password is not None:
            env["GRAPHMEM_PASSWORD"] = settings.password.get_secret_value()
    else:
        env |= {
            "GRAPHMEM_HOME": str(settings.home),
            "GRAPHMEM_DATABASE": str(settings.database),
        }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return populated


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_the_printed_blocks_pass_the_analyser_and_keep_user_text_literal(cli: Populated) -> None:
    code, everything, err = run("browse")
    assert code == 0, err
    code, odd, err = run("browse", "--layer", "conversation", "--session", ODD_SESSION, "--open")
    assert code == 0, err
    for view in VIEWS:
        assert f"// {view.layer}: {view.title}" in everything
    assert ":param session => 'it\\u0027s \\u0022odd\\u0022\\u003B \\u003D\\u003E \\u0024x" in odd
    # the raw id appears only inside a `//` comment, as a person reads it
    assert all(line.startswith("// ") for line in odd.splitlines() if ODD_SESSION in line)
    assert lint({"browse": everything, "browse-odd": odd}) == {"browse": [], "browse-odd": []}
    assert read_graph(cli.memory, cli.space) == cli.graph  # browsing wrote nothing


def test_json_and_urls(cli: Populated) -> None:
    code, out, _ = run("browse", "--json", "--open", "--subject", "Alice")
    assert code == 0
    data = json.loads(out)
    assert data["space"] == cli.space and data["empty"] == []
    views = {v["view"]: v for v in data["views"]}
    assert set(views) == {v.name for v in VIEWS}
    facts = views["facts_micrograph"]
    assert facts["params"] == {
        "space": cli.space,
        "subject": "alice",
        "category": None,
        "limit": 50,
    }
    url = urlsplit(facts["url"])
    assert url.netloc == "localhost:7474" or cli.settings.uri
    assert parse_qs(url.query)["arg"] == [facts["block"]]
    assert facts["block"].endswith(facts["query"] + ";")


def test_one_layer_and_an_empty_layer(cli: Populated) -> None:
    code, out, _ = run("browse", "--layer", "facts")
    assert code == 0
    assert "// facts: " in out and "// conversation: " not in out and "// experience: " not in out
    # a space holding only a conversation says what the other layers lack
    code, _, err = run(
        "ingest", str(REPO / "examples" / "conversation.jsonl"), "--space", "only-talk"
    )
    assert code == 0, err
    code, out, _ = run("browse", "--space", "only-talk")
    assert code == 0
    assert "no subject in space 'only-talk' yet" in out
    assert "no trajectory in space 'only-talk' yet" in out
    assert ":param session => 's4';" in out


@pytest.mark.parametrize(
    ("args", "exit_code", "message"),
    [
        (["--space", "nobody-here"], 5, "unknown space 'nobody-here'"),
        (["--session", "x'}) DETACH DELETE n //"], 5, "no session"),
        (["--subject", "alice", "--category", "nowhere"], 5, "no unit in category 'nowhere'"),
        (["--layer", "everything"], 6, "field '--layer'"),
        (["--limit", "0"], 6, "field '--limit'"),
        (["--space", "x}) RETURN 1 //"], 6, "invalid space name"),
    ],
)
def test_bad_input_is_one_clear_line(
    cli: Populated, args: list[str], exit_code: int, message: str
) -> None:
    code, out, err = run("browse", *args)
    assert code == exit_code, (out, err)
    assert message in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in out + err


def test_style_needs_no_database(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_URI", "bolt://127.0.0.1:1")  # nothing listens there
    code, out, _ = run("browse", "--style")
    assert code == 0 and out == grass()
    code, out, _ = run("browse", "--style", "--json")
    assert code == 0 and json.loads(out) == style_sheet()
