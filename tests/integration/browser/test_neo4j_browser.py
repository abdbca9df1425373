"""Neo4j Browser, seen for real: the demo space (all four layers, filled the way the user
guide, docs/guide.md, fills it) on the local Neo4j, `graphmem browse --space demo --open` run
like a user runs it, and every view it prints opened in Neo4j Browser 5.24 in headless Chromium.

Per view: open its `--open` URL (Browser connects to the configured Neo4j; the first time the
test types the password into the connect form), run what the URL put in the editor (the
`:param` lines and the query: Browser sets the values and lists the statements), then paste the
printed query alone and run it. Then check what a person sees in the result frame: every node
of the query's result drawn, filled with its label's colour from graphmem's style sheet
(applied by the server's `browser.post_connect_cmd`), captioned with the label's caption
template over its properties (not an id), and the relationships drawn in their types' colours.
A screenshot of each result frame goes to $GRAPHMEM_TEST_SCREENSHOTS (`make screenshots`
points it at docs/img) or to a temporary folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from graphmem_neo4j.browse import (
    NODE_STYLES,
    REL_STYLES,
    STEP_QUERY,
    STEP_VALUES,
    VIEWS,
    View,
    render_caption,
)
from graphmem_neo4j.embedder import SentenceTransformerEmbedder
from graphmem_neo4j.insights.parsing import read_tasks
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.schema import labels as schema_labels
from graphmem_neo4j.settings import Settings
from graphmem_neo4j.store.local_neo4j import LocalNeo4j
from tests.conftest import REPO, reset_neo4j, skip_for_want_of

from . import neo4j_browser

pytestmark = [pytest.mark.neo4j, pytest.mark.browser]

EXAMPLES = REPO / "examples"
SPACE = "demo"
GRAPHMEM = Path(sys.executable).with_name("graphmem")


def fill_demo_space(memory: GraphMemory) -> None:
    """The user guide's commands (docs/guide.md), through the API they call."""
    memory.conversation.ingest_file(EXAMPLES / "conversation.jsonl", space=SPACE)
    memory.facts.add_file(EXAMPLES / "facts.jsonl", space=SPACE)
    memory.facts.add_file(EXAMPLES / "facts_updates.jsonl", space=SPACE)
    for name in ("tasks.jsonl", "tasks_more.jsonl"):
        tasks = read_tasks(EXAMPLES / name)
        memory.insights.record_tasks(
            tasks.tasks, space=SPACE, source=str(EXAMPLES / name), lines=tasks.lines, learn=True
        )
    experience = EXAMPLES / "experience"
    memory.experience.add_file(experience / "expert.jsonl", kind="expert", space=SPACE)
    memory.experience.add_file(experience / "exploration.jsonl", kind="exploration", space=SPACE)


@dataclass(frozen=True)
class PrintedView:
    """One view as `graphmem browse --open` prints it, and its values from `--json`."""

    view: View
    url: str
    param_block: str
    query: str
    params: dict[str, Any]


def parse_printed(text: str, as_json: dict[str, Any]) -> list[PrintedView]:
    """Split the printed output into views: title comment, `// open:` URL, the step-1
    comment and `:param` lines, the step-2 comment and the query (up to the blank line)."""
    by_title = {f"// {v.layer}: {v.title}": v for v in VIEWS}
    values = {item["view"]: item["params"] for item in as_json["views"]}
    printed = []
    for chunk in text.split("\n\n"):
        lines = chunk.splitlines()
        if not lines or lines[0] not in by_title or len(lines) < 4:
            continue
        view = by_title[lines[0]]
        url = lines[2].removeprefix("// open: ")
        values_at, query_at = lines.index(STEP_VALUES), lines.index(STEP_QUERY)
        printed.append(
            PrintedView(
                view,
                url,
                "\n".join(lines[values_at + 1 : query_at]),
                "\n".join(lines[query_at + 1 :]),
                values[view.name],
            )
        )
    return printed


@dataclass
class Demo:
    server: LocalNeo4j
    views: list[PrintedView]
    empty: list[Any]


def run_graphmem(home: Path, server: LocalNeo4j, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env.update(GRAPHMEM_HOME=str(home), GRAPHMEM_URI=server.uri)
    env["GRAPHMEM_PASSWORD"] = server.password()
    done = subprocess.run(
        [str(GRAPHMEM), *args], env=env, capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def demo(local_neo4j_server: LocalNeo4j, minilm: SentenceTransformerEmbedder) -> Demo:
    reason = neo4j_browser.unavailable_reason()
    if reason is not None:
        skip_for_want_of(reason)
    server = local_neo4j_server
    reset_neo4j(server.uri, "neo4j", server.password())
    settings = Settings(uri=server.uri, password=server.password(), llm="none")
    with GraphMemory(settings, embedder=minilm) as memory:
        fill_demo_space(memory)
    # GRAPHMEM_HOME is the server's parent folder: the CLI finds its Browser as it finds the
    # one `graphmem neo4j start` runs
    home = server.folder.parent
    text = run_graphmem(home, server, "browse", "--space", SPACE, "--open")
    as_json = json.loads(run_graphmem(home, server, "browse", "--space", SPACE, "--json"))
    return Demo(server, parse_printed(text, as_json), as_json["empty"])


def screenshot_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    wanted = os.environ.get("GRAPHMEM_TEST_SCREENSHOTS")
    folder = Path(wanted) if wanted else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def session(
    demo: Demo, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[neo4j_browser.BrowserSession]:
    assert demo.server.http_port is not None
    origin = f"http://127.0.0.1:{demo.server.http_port}"
    with neo4j_browser.browser_session(origin, tmp_path_factory.mktemp("chromium")) as browser:
        yield browser


def expected_graph(server: LocalNeo4j, printed: PrintedView) -> tuple[dict[int, Any], list[str]]:
    """The query's result through the driver: internal id → node, and relationship types."""
    import neo4j
    from neo4j.graph import Node, Path, Relationship

    nodes: dict[int, Any] = {}
    rels: dict[str, str] = {}

    def walk(value: Any) -> None:
        if isinstance(value, Node):
            nodes[int(value.element_id.rsplit(":", 1)[-1])] = value
        elif isinstance(value, Relationship):
            rels[value.element_id] = value.type
            walk(value.start_node)
            walk(value.end_node)
        elif isinstance(value, Path):
            for part in (*value.nodes, *value.relationships):
                walk(part)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    with neo4j.GraphDatabase.driver(server.uri, auth=("neo4j", server.password())) as driver:
        records = driver.execute_query(printed.query.rstrip(";"), printed.params).records
    for record in records:
        walk(list(record.values()))
    return nodes, list(rels.values())


def drawn_from(drawn: str, caption: str) -> bool:
    """Whether `drawn` is what Browser makes of `caption` in a circle (its fitCaptionIntoCircle):
    the caption cut to the characters the circle's area allows, or its first word and then
    words of it in order, the last one shortened with an ellipsis (a word that does not fit
    on the last line is dropped and the next one shortened)."""
    full = caption.split()
    if not drawn.endswith("…"):
        return bool(drawn.split()) and " ".join(full).startswith(" ".join(drawn.split()))
    *kept, cut = drawn.removesuffix("…").split() or [""]
    at = 0
    for index, word in enumerate(kept):
        while at < len(full) and full[at] != word:
            at += 1
        if at == len(full) or (index == 0 and at != 0):
            return False
        at += 1
    return not cut or any(w.startswith(cut) for w in full[at if kept else 0 :])


def test_every_printed_view_draws_styled_captioned_nodes_in_neo4j_browser(
    demo: Demo,
    session: neo4j_browser.BrowserSession,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    assert demo.empty == []  # the demo space has every layer
    assert [p.view.name for p in demo.views] == [v.name for v in VIEWS]
    shots = screenshot_dir(tmp_path_factory)
    captions = {name: label.caption for name, label in schema_labels().items()}
    for index, printed in enumerate(demo.views):
        name = printed.view.name
        # --open: the server's own Browser, connected to GRAPHMEM_URI, the view in the editor
        url = urlsplit(printed.url)
        assert f"{url.scheme}://{url.netloc}" == session.origin and url.path == "/browser/"
        assert parse_qs(url.query)["arg"] == [printed.param_block + "\n" + printed.query]
        session.open(printed.url)
        if index == 0:
            port = demo.server.port
            assert session.connect_form() == {
                "address": f"127.0.0.1:{port}",
                "scheme": "bolt://",
                "username": "neo4j",
            }
            session.log_in(demo.server.password())
        else:
            session.wait_connected()
        session.run()
        statuses = session.statement_statuses(session.statements_frame())
        param_lines = [line.rstrip(";") for line in printed.param_block.splitlines()]
        assert [text for text, _ in statuses][: len(param_lines)] == param_lines, name
        assert [status for _, status in statuses] == ["success"] * (len(param_lines) + 1), name

        # the query alone, pasted as printed: Browser draws its graph
        session.paste(printed.query)
        session.run()
        frame = session.graph_frame()
        drawn = session.drawn_graph(frame)

        nodes, rel_types = expected_graph(demo.server, printed)
        assert len(nodes) > 1 and rel_types, name
        assert {n.identity for n in drawn.nodes} == set(nodes), name
        assert f"Displaying {len(nodes)} nodes" in drawn.overview, name
        for shown in drawn.nodes:
            node = nodes[shown.identity]
            (label,) = node.labels
            style = NODE_STYLES[label]  # KeyError: a label the style sheet does not know
            assert shown.fill == style.color.upper(), (name, label, shown)
            props = dict(node.items())
            full = render_caption(style.caption, props)
            text = shown.caption.removesuffix("…").rstrip()
            assert text, (name, label, "no caption")
            assert drawn_from(shown.caption, full), (name, label, shown.caption, full)
            assert text != str(shown.identity), (name, label, "caption is the internal id")
            # the label's declared caption property is there and, unless cut, shown
            declared = str(props.get(captions[label]) or "").split()
            assert declared, (name, label, f"no {captions[label]} property")
            assert shown.caption.endswith("…") or declared[0] in text, (name, label, text)
        # every relationship of the result drawn in its type's colour (Browser may add the
        # ones between drawn nodes: "connect result nodes")
        drawn_colours = Counter(drawn.relationship_fills)
        wanted_colours = Counter(REL_STYLES[t].color.upper() for t in rel_types)
        assert all(drawn_colours[c] >= n for c, n in wanted_colours.items()), (name, drawn_colours)
        styled = {s.color.upper() for s in REL_STYLES.values()}
        assert set(drawn_colours) <= styled, (name, drawn_colours)
        session.screenshot(frame, shots / f"browse-{name}.png")
    assert not [u for u in session.refused if "127.0.0.1" in u or u.startswith("ws")]
