"""Reading chat logs and turning plain dicts into the layers' inputs (no database)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graphmem_neo4j.chatlog import (
    dialogue_steps,
    merge_outcome,
    offline_facts,
    parse_chat_log,
    plan_task,
    read_chat_log,
    statements_of,
    task_from,
    task_id_for,
    third_person,
    trajectory_from,
    turns_from,
)
from graphmem_neo4j.conversation.models import TurnInput
from graphmem_neo4j.errors import InputError

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def log_of(*rows: Any, session: str = "s1") -> Any:
    lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
    return parse_chat_log(lines, source="chat.jsonl", session=session)


def test_turns_steps_and_outcome_are_told_apart() -> None:
    log = log_of(
        {"speaker": "Maya", "text": "Heat the egg", "timestamp": "2024-05-04T09:00:00Z"},
        {"action": "go to fridge 1", "observation": "The fridge 1 is closed."},
        {"role": "assistant", "content": "Done.", "mood": "cheerful"},
        {"outcome": "resolved", "reward": 1},
    )
    assert [t.turn_id for t in log.turns] == ["s1#1", "s1#2"]
    assert log.turns[1].speaker == "assistant" and log.turns[1].text == "Done."
    assert log.turns[1].metadata == {"mood": "cheerful"}
    assert log.turns[0].timestamp is not None
    assert [s.action for s in log.steps] == ["go to fridge 1"]
    assert log.outcome is not None and log.outcome.outcome == "resolved"
    assert log.outcome.reward == 1.0


@pytest.mark.parametrize(
    ("row", "line", "field", "reason"),
    [
        ("{not json", 2, None, "malformed JSON"),
        ('["a list"]', 2, None, "expected a JSON object"),
        ({"speaker": "A", "role": "B", "text": "x"}, 2, "role", "not both"),
        ({"text": "no speaker"}, 2, "speaker", "missing"),
        ({"speaker": "A", "text": "   "}, 2, "text", "must not be empty"),
        ({"speaker": "A", "text": 5}, 2, "text", "expected a string"),
        ({"speaker": "A", "text": "x", "action": "y"}, 2, None, "turn and step"),
        ({"action": "go", "observation": 3}, 2, "observation", "expected a string"),
        ({"action": "go"}, 2, "observation", "missing"),
        ({"action": "go", "observation": "", "note": 1}, 2, "note", "only"),
        ({"outcome": "maybe"}, 2, "outcome", "resolved"),
        ({"outcome": "failed", "reward": 2}, 2, "reward", "between 0 and 1"),
        ({"outcome": "failed", "colour": "red"}, 2, "colour", "unknown field"),
        ({"speaker": "A", "text": "x", "timestamp": "yesterday"}, 2, "timestamp", "ISO-8601"),
        ({"speaker": "A", "text": "again", "turn_id": "s1#1"}, 2, "turn_id", "duplicate"),
        ({"colour": "red"}, 2, None, "a turn"),
    ],
)
def test_bad_lines_name_file_line_and_field(
    row: Any, line: int, field: str | None, reason: str
) -> None:
    with pytest.raises(InputError) as caught:
        log_of({"speaker": "A", "text": "first"}, row)
    error = caught.value
    assert (error.source, error.line, error.field) == ("chat.jsonl", line, field)
    assert reason in str(error)


def test_one_outcome_at_most_and_at_least_one_turn() -> None:
    with pytest.raises(InputError, match="second outcome"):
        log_of({"speaker": "A", "text": "x"}, {"outcome": "failed"}, {"outcome": "resolved"})
    with pytest.raises(InputError, match="no turns"):
        log_of({"action": "go", "observation": ""})


def test_cypher_looking_text_is_just_text() -> None:
    text = "'}) MATCH (n) DETACH DELETE n //"
    log = log_of({"speaker": "Eve", "text": text, "turn_id": "x') DELETE n"})
    assert log.turns[0].text == text


def test_the_session_defaults_to_the_file_name(tmp_path: Path) -> None:
    path = tmp_path / "monday-standup.jsonl"
    path.write_text(json.dumps({"speaker": "A", "text": "hi"}) + "\n\n", encoding="utf-8")
    log = read_chat_log(path)
    assert log.session == "monday-standup" and log.turns[0].turn_id == "monday-standup#1"
    assert read_chat_log(path, session="other").turns[0].session == "other"


def test_unreadable_files_are_input_errors(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.jsonl"
    bad.write_bytes(b'{"speaker": "A", "text": "caf\xe9"}\n')
    with pytest.raises(InputError, match="UTF-8"):
        read_chat_log(bad)
    with pytest.raises(InputError, match="cannot read"):
        read_chat_log(tmp_path / "missing.jsonl")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live in Porto.", "Maya lives in Porto."),
        ("I moved to Lisbon.", "Maya moved to Lisbon."),
        ("I'm a nurse.", "Maya is a nurse."),
        ("I study at Coimbra.", "Maya studies at Coimbra."),
        ("I like jazz.", "Maya likes jazz."),
        ("I watch films.", "I watch films."),  # not a verb the patterns read: left alone
        ("I saw how it went.", "I saw how it went."),
        ("My employer is Acme.", "Maya's employer is Acme."),
        ("My kids are excited.", "My kids are excited."),
    ],
)
def test_third_person(text: str, expected: str) -> None:
    assert third_person(text, "Maya") == expected


def test_clauses_become_statements() -> None:
    text = "Big news: I moved to Porto and I work at Globex now, so I am busy."
    assert statements_of(text, "Maya") == (
        "Big news. Maya moved to Porto. Maya works at Globex. Maya is busy."
    )


def turn(speaker: str, text: str, turn_id: str = "t1", timestamp: int | None = None) -> TurnInput:
    return TurnInput("s", turn_id, speaker, text, timestamp)


def test_offline_facts_come_from_people_with_their_turn_as_source() -> None:
    may_4 = 1714813200000  # 2024-05-04T09:00:00Z
    facts = offline_facts(
        [
            turn("Maya", "I moved to Lisbon in March 2023 and I work at Acme.", "t1", may_4),
            turn("assistant", "I live in the cloud.", "t2"),
            turn("Maya", "What a day!", "t3"),
        ]
    )
    got = {(f.subject, f.relation, f.object, f.valid_from, f.source) for f in facts}
    assert got == {
        ("Maya", "lives_in", "Lisbon", "2023-03", "turn t1"),
        ("Maya", "works_at", "Acme", "2024-05-04", "turn t1"),
    }


def test_the_same_statement_twice_gives_one_fact() -> None:
    facts = offline_facts([turn("Bo", "I live in Rome.", "a"), turn("Bo", "I live in Rome.", "a")])
    assert len(facts) == 1


def test_task_ids_use_the_plain_id_alphabet() -> None:
    assert task_id_for("monday standup (2)") == "chat:monday-standup-2"
    assert task_id_for("!!!") == "chat:session"


def test_a_plan_with_agent_steps_has_a_trajectory() -> None:
    log = read_chat_log(EXAMPLES / "chat_log.jsonl")
    task, trajectory = plan_task(log, log.outcome)
    assert task is not None and trajectory is not None
    assert task.id == "chat:chat_log" and task.status == "resolved"
    assert task.query == "heat some egg and put it in the countertop"
    assert [s.action for s in task.steps] == [s.action for s in log.steps]
    assert trajectory.kind == "expert" and trajectory.reward == 1.0
    failed = merge_outcome(log.outcome, {"outcome": "failed", "task_id": "try-2"})
    task, trajectory = plan_task(log, failed)
    assert task is not None and task.id == "try-2" and task.status == "failed"
    assert trajectory is not None and trajectory.kind == "exploration" and trajectory.reward == 0


def test_without_agent_steps_the_replies_are_the_steps() -> None:
    turns = [turn("Ann", "Fix my bike"), turn("Bot", "Try the chain"), turn("Ann", "Worked!")]
    assert dialogue_steps(turns) == [
        {"role": "Bot", "action": "Try the chain", "observation": "Worked!"}
    ]
    log = log_of(
        {"speaker": "Ann", "text": "Fix my bike"},
        {"speaker": "Bot", "text": "Try the chain"},
        {"outcome": "resolved"},
    )
    task, trajectory = plan_task(log, log.outcome)
    assert task is not None and task.query == "Fix my bike" and len(task.steps) == 1
    assert trajectory is None


def test_no_outcome_no_task() -> None:
    log = log_of({"speaker": "A", "text": "x"})
    assert plan_task(log, merge_outcome(log.outcome, {"outcome": None})) == (None, None)
    with pytest.raises(InputError, match="need an outcome"):
        merge_outcome(None, {"task_id": "t"})


def test_turn_dicts_get_stable_ids() -> None:
    rows = [{"role": "user", "content": "hello"}, {"speaker": "bot", "text": "hi"}]
    first = turns_from(rows, session="mcp")
    again = turns_from(list(reversed(rows)), session="mcp")
    assert {t.turn_id for t in first} == {t.turn_id for t in again}
    repeated = turns_from([rows[0], rows[0]], session="mcp")
    assert repeated[1].turn_id == repeated[0].turn_id + "-2"
    with pytest.raises(InputError, match="expected a turn object"):
        turns_from(["just text"])  # type: ignore[list-item]
    with pytest.raises(InputError, match="no turns"):
        turns_from([])


def test_task_and_trajectory_dicts_are_checked() -> None:
    task = task_from({"id": "t1", "query": "q", "status": "failed"})
    assert task.steps == ()
    with pytest.raises(InputError) as caught:
        task_from({"id": "t1", "query": "q", "status": "done"})
    assert caught.value.field == "status"
    run = {
        "id": "r1",
        "task": "heat egg",
        "reward": 1,
        "steps": [{"action": "go", "observation": ""}],
    }
    assert trajectory_from({**run, "kind": "expert"}).kind == "expert"
    assert trajectory_from(run, kind="exploration").kind == "exploration"
    with pytest.raises(InputError) as caught:
        trajectory_from(run)
    assert caught.value.field == "kind"
