import json
from pathlib import Path

import pytest

from graphmem_neo4j.errors import InputError
from graphmem_neo4j.experience.models import Step, Trajectory
from graphmem_neo4j.experience.parsing import parse_file, parse_lines, validate_trajectory

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "experience"


def jsonl(**fields: object) -> str:
    record = {
        "id": "run-1",
        "task": "put a mug in coffeemachine",
        "reward": 1.0,
        "steps": [{"action": "go to countertop 1", "observation": "You see a mug 1."}],
    }
    record.update(fields)
    return json.dumps({k: v for k, v in record.items() if v is not ...})


def alfworld(conversations: list[dict[str, str]], **fields: object) -> str:
    return json.dumps({"id": "game/trial", "conversations": conversations, **fields})


FIRST = {"from": "human", "value": "You are in a room.\n\nYour task is to: put a mug in cabinet."}


def test_generic_jsonl_is_read() -> None:
    (t,) = parse_lines([jsonl(initial_observation="A kitchen.")], source="f", kind="exploration")
    assert t == Trajectory(
        "run-1",
        "put a mug in coffeemachine",
        "exploration",
        1.0,
        (Step("go to countertop 1", "You see a mug 1."),),
        "A kitchen.",
    )
    assert t.stored_id == "exploration:run-1"


def test_alfworld_conversations_are_read() -> None:
    turns = [
        FIRST,
        {"from": "gpt", "value": "go to cabinet 1"},
        {"from": "human", "value": "The cabinet 1 is closed."},
        {"from": "gpt", "value": "Thought: open it first.\nAction: open cabinet 1"},
        {"from": "human", "value": "You open the cabinet 1."},
    ]
    (t,) = parse_lines([alfworld(turns, task_type="x")], source="f", kind="expert")
    assert t.task == "put a mug in cabinet."
    assert t.initial_observation == "You are in a room."
    assert [s.action for s in t.steps] == ["go to cabinet 1", "open cabinet 1"]
    assert t.reward == 1.0 and t.metadata == {"task_type": "x"}


def test_shipped_examples_parse() -> None:
    assert len(parse_file(EXAMPLES / "expert.jsonl", kind="expert")) == 5
    assert len(parse_file(EXAMPLES / "alfworld_expert.jsonl", kind="expert", fmt="alfworld")) == 2


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ("{not json", None, "malformed JSON"),
        ("[1, 2]", None, "expected a JSON object"),
        (jsonl(id=...), "id", "missing"),
        (jsonl(task="  "), "task", "must not be empty"),
        (jsonl(task=3), "task", "expected a string, got int"),
        (jsonl(reward="high"), "reward", "expected a number"),
        (jsonl(reward=True), "reward", "expected a number"),
        (jsonl(reward=1.5), "reward", "between 0 and 1"),
        (jsonl(steps=[]), "steps", "non-empty list"),
        (jsonl(steps=["go"]), "steps[0]", "expected an object"),
        (jsonl(steps=[{"action": "go"}]), "steps[0].observation", "missing"),
        (jsonl(steps=[{"action": "", "observation": ""}]), "steps[0].action", "must not be empty"),
        (jsonl(metadata=[1]), "metadata", "expected an object"),
    ],
)
def test_bad_lines_name_file_line_and_field(line: str, field: str | None, message: str) -> None:
    good = jsonl(id="ok")
    with pytest.raises(InputError) as caught:
        parse_lines([good, "", line], source="runs.jsonl", kind="expert")
    error = caught.value
    assert (error.source, error.line, error.field) == ("runs.jsonl", 3, field)
    assert message in str(error)
    assert str(error).startswith("runs.jsonl:3")


@pytest.mark.parametrize(
    ("turns", "extra", "field", "message"),
    [
        ([FIRST], {}, "conversations", "expected a list"),
        (
            [FIRST, {"from": "human", "value": "x"}, {"from": "gpt", "value": "y"}],
            {},
            "conversations[1].from",
            "expected from='gpt'",
        ),
        (
            [
                {"from": "human", "value": "no task here"},
                {"from": "gpt", "value": "go"},
                {"from": "human", "value": "ok"},
            ],
            {},
            "conversations[0].value",
            "Your task is to",
        ),
        (
            [
                FIRST,
                {"from": "gpt", "value": "go"},
                {"from": "human", "value": "ok"},
                {"from": "gpt", "value": "open"},
            ],
            {},
            "conversations[3]",
            "no observation",
        ),
        (
            [FIRST, {"from": "gpt", "value": "go"}, {"from": "human", "value": "ok"}],
            {"reward": -1},
            "reward",
            "between 0 and 1",
        ),
    ],
)
def test_bad_alfworld_rows(
    turns: list[dict[str, str]], extra: dict[str, object], field: str, message: str
) -> None:
    with pytest.raises(InputError) as caught:
        parse_lines([alfworld(turns, **extra)], source="g.jsonl", kind="expert", fmt="alfworld")
    assert (caught.value.line, caught.value.field) == (1, field)
    assert message in str(caught.value)


def test_exploration_rows_need_a_reward_in_alfworld_form() -> None:
    turns = [FIRST, {"from": "gpt", "value": "go"}, {"from": "human", "value": "ok"}]
    with pytest.raises(InputError, match="reward"):
        parse_lines([alfworld(turns)], source="g", kind="exploration", fmt="alfworld")
    (t,) = parse_lines([alfworld(turns, reward=0)], source="g", kind="exploration")
    assert t.reward == 0.0


def test_duplicate_ids_and_empty_files_are_refused() -> None:
    with pytest.raises(InputError, match=r"duplicate id 'run-1' \(first on line 1\)"):
        parse_lines([jsonl(), jsonl()], source="f", kind="expert")
    with pytest.raises(InputError, match="no trajectories"):
        parse_lines(["", "  "], source="f", kind="expert")


def test_forced_format_and_unknown_kind() -> None:
    with pytest.raises(InputError, match="conversations"):
        parse_lines([jsonl()], source="f", kind="expert", fmt="alfworld")
    with pytest.raises(InputError, match="unknown kind"):
        parse_lines([jsonl()], source="f", kind="teacher")  # type: ignore[arg-type]


def test_files_that_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        parse_file(tmp_path / "missing.jsonl", kind="expert")
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(InputError, match="UTF-8"):
        parse_file(binary, kind="expert")


def test_cypher_looking_text_is_kept_verbatim() -> None:
    task = "x'}) MATCH (n) DETACH DELETE n //"
    (t,) = parse_lines([jsonl(task=task)], source="f", kind="expert")
    assert t.task == task


def test_python_built_trajectories_get_the_same_checks() -> None:
    bad = Trajectory("r", "task", "expert", 2.0, (Step("go", "ok"),))
    with pytest.raises(InputError, match="between 0 and 1") as caught:
        validate_trajectory(bad)
    assert caught.value.source == "<api>"
    with pytest.raises(InputError, match="unknown kind"):
        validate_trajectory(Trajectory("r", "t", "boss", 1.0, (Step("go", "ok"),)))  # type: ignore[arg-type]
