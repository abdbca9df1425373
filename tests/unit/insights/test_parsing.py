import json
from pathlib import Path

import pytest

from graphmem_neo4j.errors import InputError
from graphmem_neo4j.insights.models import Step, TaskRecord
from graphmem_neo4j.insights.parsing import read_tasks, task_from_dict, validate_task

GOOD = {
    "id": "t-1",
    "query": "heat some egg and put it in the countertop",
    "status": "resolved",
    "steps": [
        {"role": "agent", "action": "take egg 1 from fridge 1", "observation": "You pick up."},
        {"action": "heat egg 1 with microwave 1", "observation": ""},
    ],
    "answer": "done",
}


def write(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "tasks.jsonl"
    path.write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n",
        encoding="utf-8",
    )
    return path


def test_a_good_line_becomes_a_typed_task(tmp_path: Path) -> None:
    parsed = read_tasks(write(tmp_path, GOOD))
    (task,) = parsed.tasks
    assert task.id == "t-1"
    assert task.status == "resolved"
    assert task.steps == (
        Step("take egg 1 from fridge 1", "You pick up.", "agent"),
        Step("heat egg 1 with microwave 1", "", "agent"),
    )
    assert task.answer == "done" and task.feedback is None
    assert parsed.lines == {"t-1": 1}


def test_status_is_case_insensitive_and_normalised() -> None:
    assert task_from_dict({**GOOD, "status": "FAILED"}).status == "failed"


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"query": "   "}, "query", "must not be empty"),
        ({"query": 3}, "query", "expected a string, got int"),
        ({"status": "done"}, "status", "expected 'resolved' or 'failed'"),
        ({"steps": "go"}, "steps", "expected a list, got str"),
        ({"steps": [{"observation": "x"}]}, "steps[0].action", "missing"),
        ({"steps": [{"action": "", "observation": "x"}]}, "steps[0].action", "must not be empty"),
        ({"steps": [{"action": "a", "observation": None}]}, "steps[0].observation", "got null"),
        ({"steps": [{"action": "a", "observation": "", "tool": 1}]}, "steps[0].tool", "unknown"),
        ({"steps": [7]}, "steps[0]", "expected an object, got int"),
        ({"answer": 5}, "answer", "expected a string"),
        ({"statuss": "resolved"}, "statuss", "unknown field"),
        ({"id": ""}, "id", "invalid id"),
        ({"id": "x'}) MATCH (n) DETACH DELETE n //"}, "id", "invalid id"),
        ({"id": 12}, "id", "expected a string, got int"),
    ],
)
def test_bad_fields_name_file_line_and_field(
    tmp_path: Path, change: dict[str, object], field: str, message: str
) -> None:
    path = write(tmp_path, GOOD, {**GOOD, "id": "t-2", **change})
    with pytest.raises(InputError) as caught:
        read_tasks(path)
    assert caught.value.source == str(path)
    assert caught.value.line == 2
    assert caught.value.field == field
    assert message in caught.value.reason
    assert f"{path}:2" in str(caught.value)


def test_missing_required_fields_are_named(tmp_path: Path) -> None:
    for key in ("id", "query", "status", "steps"):
        data = {k: v for k, v in GOOD.items() if k != key}
        with pytest.raises(InputError) as caught:
            read_tasks(write(tmp_path, data))
        assert (caught.value.field, caught.value.reason) == (key, "missing")


def test_malformed_json_names_the_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"tasks.jsonl:3: malformed JSON"):
        read_tasks(write(tmp_path, GOOD, "", '{"id": "t-3", '))


def test_a_line_that_is_not_an_object_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="expected a JSON object, got list"):
        read_tasks(write(tmp_path, [1, 2]))


def test_cypher_looking_text_is_kept_as_plain_text() -> None:
    text = "MATCH (n) DETACH DELETE n // '); DROP"
    task = task_from_dict({**GOOD, "query": text, "feedback": "}) RETURN 1"})
    assert task.query == text and task.feedback == "}) RETURN 1"


def test_repeated_ids_must_repeat_the_same_task(tmp_path: Path) -> None:
    parsed = read_tasks(write(tmp_path, GOOD, GOOD))
    assert len(parsed.tasks) == 1
    with pytest.raises(InputError) as caught:
        read_tasks(write(tmp_path, GOOD, {**GOOD, "query": "something else"}))
    assert (caught.value.line, caught.value.field) == (2, "id")
    assert "line 1" in caught.value.reason


def test_empty_and_undecodable_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no tasks"):
        read_tasks(write(tmp_path, ""))
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"id": "\xff"}\n')
    with pytest.raises(InputError, match="UTF-8"):
        read_tasks(path)
    with pytest.raises(InputError, match="cannot read"):
        read_tasks(tmp_path / "missing.jsonl")


def test_tasks_built_in_python_pass_the_same_checks() -> None:
    ok = TaskRecord("a", "q", "resolved", (Step("act", "obs"),))
    assert validate_task(ok) == ok
    with pytest.raises(InputError) as caught:
        validate_task(TaskRecord("a", "q", "resolved", (Step("", "obs"),)))
    assert caught.value.field == "steps[0].action"
    with pytest.raises(InputError, match="status"):
        validate_task(TaskRecord("a", "q", "maybe", ()))  # type: ignore[arg-type]


def test_content_hash_changes_with_content_only() -> None:
    a = TaskRecord("a", "q", "resolved", (Step("act", "obs"),))
    assert (
        a.content_hash() == TaskRecord("a", "q", "resolved", (Step("act", "obs"),)).content_hash()
    )
    assert a.content_hash() != TaskRecord("a", "q", "failed", (Step("act", "obs"),)).content_hash()
