"""Injection: text that looks like Cypher (or like the FalkorDB client's `CYPHER k=v` parameter
header) is stored verbatim and never executed, through every user-facing input: CLI arguments,
JSONL fields, space and speaker names, metadata keys, and LLM output. Afterwards the graph is
intact: another space is untouched, only registered labels and types exist, and every
property key is one of ours (snake_case), never user text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphmem_neo4j.cli.main import app
from graphmem_neo4j.conversation.models import TurnInput
from graphmem_neo4j.conversation.text import name_key
from graphmem_neo4j.experience.normalize import collapse
from graphmem_neo4j.insights.models import Step, TaskRecord
from graphmem_neo4j.llm import OpenAICompatibleLLM
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.settings import Settings
from tests.fakes.openai_server import FakeOpenAI

from .helpers import Graph, check_no_duplicate_edges, check_vocabulary, snapshot, write_jsonl

PAYLOADS = (
    "'",
    '"',
    "`",
    "\\",
    "\\'",
    '\\"',
    "x'}) DETACH DELETE n //",
    'x"}) DETACH DELETE n //',
    "x`}) DETACH DELETE n //",
    "'}) MATCH (n) DETACH DELETE n RETURN 1 //",
    "}) WITH 1 AS x MATCH (m) SET m.space = 'victim' //",
    "// a comment",
    "/* unclosed comment",
    "$space",
    "$param $rows $0",
    "{space: 'other', id: 'x'}",
    "`Turn` :Space :GraphMemMeta",
    'CYPHER space="victim" MATCH (n) DELETE n',
    "CYPHER rows=[] ",
    "\\u0027) DETACH DELETE n //",
    "\\x00 and \\0",
    "line one\nline two\r\nline three",
    "tab\tseparated\tvalues",
    "bell \u0007 and escape \u001b[31m red",
    "é漢字🙂 مرحبا",
    "\u202eright-to-left override",
    "zero\u200bwidth",
    "paragraph\u2028separator",
    "%s %d {0} {name}",
    "${jndi:ldap://example.invalid/a}",
    "<script>alert(1)</script>",
    "NaN",
    "null",
    "true",
    "-1e309",
    "9223372036854775808",
    "x" * 19_000,
)
# distinct words, so that no added insight is "covered" by an earlier one
WORDS = ("apple", "brick", "cloud", "dune", "ember", "fjord", "grove", "harbor", "island", "jade")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
KEY = re.compile(r"^[a-z][a-z0-9_]*$")
SENTINEL = "sentinel"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _settings(cli_settings: dict[str, str], **extra: Any) -> Settings:
    return Settings(
        home=Path(cli_settings["GRAPHMEM_HOME"]),
        database=cli_settings["GRAPHMEM_DATABASE"],
        embedder="hash",
        **extra,
    )


def _graph(settings: Settings, space: str) -> Graph:
    with GraphMemory(settings) as memory:
        return snapshot(memory, space)


def check_intact(settings: Settings, space: str, sentinel: Graph) -> Graph:
    """The sentinel space is untouched, only the two spaces exist, the target space holds
    only our vocabulary, and every property key is ours."""
    with GraphMemory(settings) as memory:
        assert {row["id"] for row in memory.spaces()} == {SENTINEL, space}
        after = snapshot(memory, SENTINEL)
        target = snapshot(memory, space)
    assert after.shape() == sentinel.shape()
    for g in (after, target):
        check_vocabulary(g)
        check_no_duplicate_edges(g)
        keys = {k for props in g.nodes.values() for k in props}
        keys |= {k for r in g.rels for k in r["props"]}
        assert all(KEY.match(k) for k in keys), sorted(k for k in keys if not KEY.match(k))
    return target


@pytest.fixture
def sentinel(cli_settings: dict[str, str], tmp_path: Path) -> Iterator[Graph]:
    """A space with memory in every layer, which no payload may reach."""
    turns = write_jsonl(
        tmp_path / "sentinel-turns.jsonl",
        [
            {"session": "s", "turn_id": f"t{i}", "speaker": "Maya", "text": f"I visited Oslo {i}"}
            for i in range(5)
        ],
    )
    tasks = write_jsonl(
        tmp_path / "sentinel-tasks.jsonl",
        [
            {
                "id": "t0",
                "query": "heat the egg",
                "status": "resolved",
                "steps": [{"action": "go", "observation": "ok"}],
            }
        ],
    )
    facts = write_jsonl(
        tmp_path / "sentinel-facts.jsonl",
        [{"subject": "Alice", "relation": "lives_in", "object": "Oslo", "category": "location"}],
    )
    runs = write_jsonl(
        tmp_path / "sentinel-runs.jsonl",
        [
            {
                "id": "r",
                "task": "put a mug in sink",
                "reward": 1.0,
                "steps": [{"action": "go to sink 1", "observation": "ok"}],
            }
        ],
    )
    for args in (
        ("ingest", str(turns)),
        ("tasks", "record", str(tasks)),
        ("facts", "add", str(facts)),
        ("experience", "add", str(runs)),
    ):
        code, _, err = run(*args, "--space", SENTINEL)
        assert code == 0, err
    yield _graph(_settings(cli_settings), SENTINEL)


def test_payloads_in_conversation_fields_are_stored_verbatim(
    cli_settings: dict[str, str], sentinel: Graph, tmp_path: Path
) -> None:
    rows = []
    for i, p in enumerate(PAYLOADS):
        rows.append(
            {
                "session": f"s{i % 3}-{p[:150]}",
                "turn_id": f"{i}-{p[:150]}",
                "speaker": p[:200],
                "text": p,
                "timestamp": None,
                f"meta {p[:30]}": p,
            }
        )
    code, out, err = run("ingest", str(write_jsonl(tmp_path / "t.jsonl", rows)), "--space", "x")
    assert code == 0, err
    g = check_intact(_settings(cli_settings), "x", sentinel)
    turns = g.of("Turn")
    assert len(turns) == len(PAYLOADS)
    for row in rows:
        turn = turns[row["turn_id"].strip()]
        assert turn["text"] == row["text"].strip()
        assert turn["speaker"] == row["speaker"].strip()
        assert turn["session"] == row["session"].strip()
        meta = json.loads(turn["metadata_json"])
        assert meta == {k: v for k, v in row.items() if k.startswith("meta")}
    # every payload as a question: answered, never executed
    for p in PAYLOADS:
        code, out, err = run("search", "--space", "x", "--json", "-k", "3", "--", p[:2000])
        assert code == 0, (p, err)
        assert isinstance(json.loads(out)["hits"], list)
    after = check_intact(_settings(cli_settings), "x", sentinel)  # searching counts accesses
    assert {i: t["text"] for i, t in after.of("Turn").items()} == {
        i: t["text"] for i, t in turns.items()
    }


def test_payloads_in_task_fields_and_insight_commands_are_stored_verbatim(
    cli_settings: dict[str, str], sentinel: Graph, tmp_path: Path
) -> None:
    rows = [
        {
            "id": f"task-{i}",
            "query": p,
            "status": "failed",
            "steps": [{"role": p[:100].strip() or "agent", "action": p, "observation": p}],
            "answer": p,
            "feedback": p,
        }
        for i, p in enumerate(PAYLOADS)
    ]
    code, _, err = run("tasks", "record", str(write_jsonl(tmp_path / "t.jsonl", rows)), "-s", "x")
    assert code == 0, err
    added = []
    for p in PAYLOADS:
        code, out, err = run(
            "insights", "add", "--evidence", "task-0", "-s", "x", "--json", "--", p
        )
        assert code == 0, (p, err)
        added.append(json.loads(out)["id"])
        code, out, err = run("insights", "retrieve", "-s", "x", "--json", "--", p[:2000])
        assert code == 0, (p, err)
    for p in PAYLOADS[:12]:  # ids are checked against a plain alphabet before any read
        for args in (("insights", "history", p), ("tasks", "show", p)):
            code, _, err = run(*args[:-1], "-s", "x", "--", args[-1])
            assert code in (5, 6) and len(err.strip().splitlines()) == 1, (args, err)
    g = check_intact(_settings(cli_settings), "x", sentinel)
    queries, steps, insights = g.of("Query"), g.of("InteractionStep"), g.of("Insight")
    for row in rows:
        query = queries[row["id"]]
        assert query["text"] == row["query"]
        assert (query["answer"], query["feedback"]) == (row["answer"], row["feedback"])
        step = steps[f"{row['id']}#0"]
        assert (step["action"], step["observation"]) == (row["steps"][0]["action"],) * 2
    assert sorted(insights[i]["text"] for i in added) == sorted(PAYLOADS)


def test_payloads_in_trajectories_are_stored_verbatim(
    cli_settings: dict[str, str], sentinel: Graph, tmp_path: Path
) -> None:
    rows = [
        {
            "id": f"{i}-{p[:100]}",
            "task": p,
            "reward": 1.0,
            "initial_observation": p,
            "metadata": {f"key {p[:20]}": p},
            "steps": [{"action": p, "observation": p}, {"action": "look", "observation": p}],
        }
        for i, p in enumerate(PAYLOADS)
    ]
    code, _, err = run("experience", "add", str(write_jsonl(tmp_path / "r.jsonl", rows)), "-s", "x")
    assert code == 0, err
    for p in PAYLOADS:
        code, _out, err = run("experience", "retrieve", "-s", "x", "--json", "--", p[:2000])
        assert code == 0, (p, err)
    g = check_intact(_settings(cli_settings), "x", sentinel)
    runs = {props["source_id"]: props for props in g.of("Trajectory").values()}
    for row in rows:
        run_ = runs[row["id"].strip()]
        assert run_["task"] == collapse(row["task"])
        assert run_["initial_observation"] == row["initial_observation"]
        assert json.loads(run_["metadata_json"]) == row["metadata"]
        steps = json.loads(run_["steps_json"])
        assert steps[0] == [collapse(row["task"]), row["task"]]


def test_payloads_in_fact_fields_and_fact_commands(
    cli_settings: dict[str, str], sentinel: Graph, tmp_path: Path
) -> None:
    allowed = [p for p in PAYLOADS if not CONTROL.search(p) and len(p.strip()) <= 500]
    rows = [
        {
            "id": f"f{i}",
            "subject": f"{p} {i}",
            "relation": "said",
            "object": f"{p} {i}",
            "category": "quote",
            "context": p[:200],
            "source": p,
        }
        for i, p in enumerate(allowed)
    ]
    code, _, err = run("facts", "add", str(write_jsonl(tmp_path / "f.jsonl", rows)), "-s", "x")
    assert code == 0, err
    for p in PAYLOADS:
        for args in (
            ("facts", "ask", "-s", "x", "--json", "--", p[:2000]),
            ("facts", "current", f"--subject={p[:400]}", "-s", "x", "--json"),
        ):
            code, out, err = run(*args)
            # 6: nothing in the text to look up (no letters), said in one line
            assert code == 0 or (code == 6 and len(err.strip().splitlines()) == 1), (p, err)
            assert code != 0 or isinstance(json.loads(out), dict)
    # relation and category are identifiers: a payload there is refused, naming the field
    for field in ("relation", "category"):
        bad = write_jsonl(tmp_path / "bad.jsonl", [{**rows[0], field: "x'}) DETACH DELETE n //"}])
        code, _, err = run("facts", "add", str(bad), "-s", "x")
        assert code == 6 and f"field '{field}'" in err, err
    g = check_intact(_settings(cli_settings), "x", sentinel)
    units = g.of("MemoryUnit")
    for row in rows:
        unit = units[row["id"]]
        assert unit["subject"] == row["subject"].strip()
        assert unit["object"] == row["object"].strip()
        assert unit["source"] == row["source"].strip()


# --- LLM output -------------------------------------------------------------------------------


@pytest.fixture
def llm_memory(
    cli_settings: dict[str, str], fake_openai: FakeOpenAI, sentinel: Graph
) -> Iterator[GraphMemory]:
    llm = OpenAICompatibleLLM(model="fake", base_url=fake_openai.base_url, api_key="k")
    with GraphMemory(_settings(cli_settings), llm=llm) as memory:
        yield memory


def test_llm_output_is_data_for_conversation_extraction(
    llm_memory: GraphMemory,
    fake_openai: FakeOpenAI,
    cli_settings: dict[str, str],
    sentinel: Graph,
) -> None:
    names = [p for p in PAYLOADS if p.strip() and len(p) <= 120]
    for start in range(0, len(names), 8):
        chunk = names[start : start + 8]
        answer = {
            "turns": [
                {
                    "turn_id": f"t{start + i}",
                    "entities": [{"name": n, "type": "thing"}, {"name": "Maya", "type": "person"}],
                    "relations": [
                        {"source": "Maya", "target": n, "type": "said", "fact": n},
                    ],
                }
                for i, n in enumerate(chunk)
            ]
        }
        fake_openai.queue(json.dumps(answer))
        batch = [
            TurnInput("s", f"t{start + i}", "Maya", f"Turn {start + i} says things.", None)
            for i in range(len(chunk))
        ]
        llm_memory.conversation.add_turns(batch, space="x", forget_every=0)
    g = check_intact(_settings(cli_settings), "x", sentinel)
    stored = {p["name"] for p in g.of("Entity").values()}
    stored |= {a for p in g.of("Entity").values() for a in p.get("aliases") or []}
    facts = {r["props"]["fact"] for r in g.rels if r["type"] == "RELATES"}
    # a name with no letters or digits names no entity; names equal up to punctuation merge
    named = {n.strip() for n in names if name_key(n)}
    assert {name_key(n) for n in named} <= {name_key(n) for n in stored}
    assert len(named & stored) >= len(named) - 3  # the three "x?}) DETACH..." share one key
    assert facts <= set(names) and len(facts) >= len(named) // 2


def test_llm_output_is_data_for_the_insight_controller(
    llm_memory: GraphMemory,
    fake_openai: FakeOpenAI,
    cli_settings: dict[str, str],
    sentinel: Graph,
) -> None:
    memory = llm_memory
    memory.insights.record_tasks(
        [TaskRecord("seed", "heat some egg", "resolved", (Step("agent", "heat", "ok"),))],
        space="x",
    )
    texts = [p for p in PAYLOADS if p.strip()][:10]
    revised: list[str] = []
    for n, text in enumerate(texts):
        old = memory.insights.add_insight(f"insight {n}", space="x", evidence=["seed"])
        memory.insights.record_tasks(
            [TaskRecord(f"t{n}", "heat some egg", "failed", (Step("agent", "heat", "no"),))],
            space="x",
        )
        answer = {
            "insight_edits": [
                {"insight_id": old.id, "operation": "REVISE", "revised_insight_text": text}
            ],
            "add_new_insight": {"decision": True, "new_insight_text": f"{text} {WORDS[n]}"},
        }
        retrieved = {i.id for i in memory.insights.get_task(f"t{n}", space="x").retrieved}
        edits = [
            {"insight_id": i, "operation": "KEEP", "revised_insight_text": None}
            for i in sorted(retrieved - {old.id})
        ]
        answer["insight_edits"] = [e for e in answer["insight_edits"] if old.id in retrieved]
        revised += [text] if old.id in retrieved else []
        answer["insight_edits"] += edits
        fake_openai.queue(json.dumps(answer))
        memory.insights.feedback(f"t{n}", space="x")
    g = check_intact(_settings(cli_settings), "x", sentinel)
    stored = {p["text"] for p in g.of("Insight").values()}
    assert {f"{t} {WORDS[n]}" for n, t in enumerate(texts)} <= stored
    assert revised and set(revised) <= stored


@pytest.mark.parametrize("bad_text", ["nul \x00 inside", "half \ud800 a surrogate"])
def test_llm_text_no_engine_can_store_is_an_invalid_answer_and_retried(
    llm_memory: GraphMemory,
    fake_openai: FakeOpenAI,
    cli_settings: dict[str, str],
    sentinel: Graph,
    bad_text: str,
) -> None:
    def answer(name: str) -> str:
        entities = [{"name": name, "type": "thing"}]
        return json.dumps({"turns": [{"turn_id": "t0", "entities": entities, "relations": []}]})

    fake_openai.queue(answer(bad_text), answer("Good Name"))
    turn = TurnInput("s", "t0", "Maya", "Maya found something.", None)
    report = llm_memory.conversation.add_turns([turn], space="x", forget_every=0)
    assert report.extractor == "llm" and len(fake_openai.requests) == 2
    retry = fake_openai.requests[1]["body"]["messages"][-1]["content"]
    assert "did not validate" in retry and "answer.turns[0].entities[0].name" in retry
    g = check_intact(_settings(cli_settings), "x", sentinel)
    names = {p["name"] for p in g.of("Entity").values()}
    assert "Good Name" in names and not any(bad_text[:4] in n for n in names)
