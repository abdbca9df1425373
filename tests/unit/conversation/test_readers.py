"""Reading conversation files: every bad row is refused with its file, line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem_neo4j.conversation.readers import (
    parse_query_rows,
    read_jsonl,
    read_locomo,
    read_longmemeval,
    read_turns,
)
from graphmem_neo4j.errors import InputError

GOOD = {
    "session": "s1",
    "turn_id": "t1",
    "speaker": "Maya",
    "text": "I adopted a dog.",
    "timestamp": "2024-03-02T10:15:00Z",
}


def write_lines(tmp_path: Path, *rows: object) -> Path:
    path = tmp_path / "turns.jsonl"
    lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_valid_file_keeps_unknown_keys_as_metadata(tmp_path: Path) -> None:
    path = write_lines(tmp_path, {**GOOD, "mood": "happy"}, "", {**GOOD, "turn_id": "t2"})
    turns = read_jsonl(path)
    assert [t.turn_id for t in turns] == ["t1", "t2"]
    assert turns[0].metadata == {"mood": "happy"}
    assert turns[0].timestamp == 1709374500000
    assert turns[1].line == 3


def test_null_timestamp_is_allowed(tmp_path: Path) -> None:
    (turn,) = read_jsonl(write_lines(tmp_path, {**GOOD, "timestamp": None}))
    assert turn.timestamp is None


@pytest.mark.parametrize(
    ("row", "field", "reason"),
    [
        ({k: v for k, v in GOOD.items() if k != "speaker"}, "speaker", "missing"),
        ({**GOOD, "text": "   "}, "text", "empty"),
        ({**GOOD, "text": 42}, "text", "expected a string"),
        ({**GOOD, "session": ["s1"]}, "session", "expected a string"),
        ({**GOOD, "timestamp": "yesterday"}, "timestamp", "ISO-8601"),
        ({**GOOD, "timestamp": 1700000000}, "timestamp", "ISO-8601"),
        ({**GOOD, "text": "x" * 20_001}, "text", "longer than"),
    ],
)
def test_bad_fields_name_file_line_and_field(
    tmp_path: Path, row: dict[str, object], field: str, reason: str
) -> None:
    path = write_lines(tmp_path, GOOD | {"turn_id": "t0"}, row)
    with pytest.raises(InputError) as info:
        read_jsonl(path)
    assert info.value.line == 2
    assert info.value.field == field
    assert info.value.source == str(path)
    assert reason in str(info.value)
    assert f"{path}:2" in str(info.value)


def test_malformed_json_names_the_line(tmp_path: Path) -> None:
    path = write_lines(tmp_path, GOOD, '{"session": "s1", "turn_id": ')
    with pytest.raises(InputError, match="malformed JSON") as info:
        read_jsonl(path)
    assert info.value.line == 2


def test_a_non_object_line_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="JSON object") as info:
        read_jsonl(write_lines(tmp_path, GOOD, "[1, 2]"))
    assert info.value.line == 2


def test_duplicate_turn_ids_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="first on line 1") as info:
        read_jsonl(write_lines(tmp_path, GOOD, GOOD))
    assert (info.value.line, info.value.field) == (2, "turn_id")


def test_empty_and_non_utf8_files_are_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    with pytest.raises(InputError, match="no turns"):
        read_jsonl(empty)
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(b'{"text": "\xff\xfe"}\n')
    with pytest.raises(InputError, match="UTF-8"):
        read_jsonl(binary)


def test_cypher_looking_text_is_just_text(tmp_path: Path) -> None:
    evil = "'}) MATCH (n) DETACH DELETE n //"
    (turn,) = read_jsonl(write_lines(tmp_path, {**GOOD, "text": evil, "speaker": "a:b`c"}))
    assert turn.text == evil
    assert turn.speaker == "a:b`c"


def locomo_record(sample: str = "conv-x") -> dict[str, object]:
    return {
        "sample_id": sample,
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "Hi Bo!"},
                {
                    "speaker": "Bo",
                    "dia_id": "D1:2",
                    "text": "Look at this.",
                    "blip_caption": "a photo of a red kite",
                    "img_url": ["http://example.invalid/k.jpg"],
                },
            ],
            "session_2_date_time": "9:05 am on 12 June, 2023",
            "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "Back again."}],
        },
        "qa": [],
    }


def test_locomo_records_become_spaces_with_timestamps(tmp_path: Path) -> None:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([locomo_record("conv-a"), locomo_record("conv-b")]))
    groups = read_locomo(path)
    assert [space for space, _ in groups] == ["conv-a", "conv-b"]
    turns = groups[0][1]
    assert [t.turn_id for t in turns] == ["D1:1", "D1:2", "D2:1"]
    assert [t.session for t in turns] == ["session_1", "session_1", "session_2"]
    # 2023-05-08 13:56 UTC
    assert turns[0].timestamp == 1683554160000
    assert turns[2].timestamp == 1686560700000
    assert turns[1].text == "Look at this. [image: a photo of a red kite]"
    assert turns[1].metadata["img_url"] == ["http://example.invalid/k.jpg"]


def test_locomo_space_option_merges_records_into_one_space(tmp_path: Path) -> None:
    path = tmp_path / "locomo.json"
    first = locomo_record("conv-a")
    path.write_text(json.dumps([first]))
    ((space, turns),) = read_turns(path, "locomo", space="mine")
    assert space == "mine" and len(turns) == 3


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda r: r.pop("conversation"), "[0]"),
        (lambda r: r.pop("sample_id"), "[0].sample_id"),
        (lambda r: r["conversation"]["session_1"][0].pop("dia_id"), "session_1[0].dia_id"),
        (
            lambda r: r["conversation"].__setitem__("session_1_date_time", "sometime"),
            "session_1_date_time",
        ),
    ],
)
def test_malformed_locomo_names_the_record_path(tmp_path: Path, mutate: object, field: str) -> None:
    record = locomo_record()
    mutate(record)  # type: ignore[operator]
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([record]))
    with pytest.raises(InputError) as info:
        read_locomo(path)
    assert info.value.field is not None and field in info.value.field


def longmemeval_instance(question_id: str = "q1", shared: str = "sh_1") -> dict[str, object]:
    """One instance in LongMemEval's layout (Wu et al., ICLR 2025; its data README): a
    question over its own haystack of dated user-assistant sessions."""
    return {
        "question_id": question_id,
        "question_type": "single-session-user",
        "question": "What breed is my dog?",
        "answer": "A beagle",
        "question_date": "2023/06/01 (Thu) 10:00",
        "haystack_session_ids": [shared, f"answer_{question_id}"],
        "haystack_dates": ["2023/05/20 (Sat) 02:21", "2023/05/28 (Sun) 18:05"],
        "haystack_sessions": [
            [
                {"role": "user", "content": "Any tips for a rainy weekend?"},
                {"role": "assistant", "content": "Board games and soup."},
            ],
            [
                {"role": "user", "content": "My beagle chewed a shoe.", "has_answer": True},
                {"role": "assistant", "content": "Try a chew toy."},
            ],
        ],
        "answer_session_ids": [f"answer_{question_id}"],
    }


def test_longmemeval_instances_become_spaces_of_dated_sessions(tmp_path: Path) -> None:
    path = tmp_path / "longmemeval_s.json"
    path.write_text(json.dumps([longmemeval_instance("q1"), longmemeval_instance("q2_abs")]))
    groups = read_longmemeval(path)
    assert [space for space, _ in groups] == ["q1", "q2_abs"]
    turns = groups[0][1]
    assert [(t.session, t.turn_id, t.speaker) for t in turns] == [
        ("sh_1", "sh_1:0", "user"),
        ("sh_1", "sh_1:1", "assistant"),
        ("answer_q1", "answer_q1:0", "user"),
        ("answer_q1", "answer_q1:1", "assistant"),
    ]
    assert turns[0].timestamp == 1684549260000  # 2023-05-20 02:21 UTC
    assert turns[2].timestamp == 1685297100000  # 2023-05-28 18:05 UTC
    assert turns[2].metadata["has_answer"] is True and "has_answer" not in turns[3].metadata
    assert read_turns(path, "longmemeval", space=None)[1][0] == "q2_abs"


def test_longmemeval_into_one_space_reads_a_shared_session_once(tmp_path: Path) -> None:
    path = tmp_path / "longmemeval_s.json"
    path.write_text(json.dumps([longmemeval_instance("q1"), longmemeval_instance("q2")]))
    ((space, turns),) = read_longmemeval(path, space="all")
    assert space == "all"
    assert [t.turn_id for t in turns] == [
        "sh_1:0",
        "sh_1:1",
        "answer_q1:0",
        "answer_q1:1",
        "answer_q2:0",
        "answer_q2:1",
    ]
    changed = longmemeval_instance("q2")
    changed["haystack_sessions"][0][0]["content"] = "Something else."  # type: ignore[index]
    path.write_text(json.dumps([longmemeval_instance("q1"), changed]))
    with pytest.raises(InputError, match="differs from the one read at") as info:
        read_longmemeval(path, space="all")
    assert info.value.field == "[1].haystack_sessions[0]"


def test_a_session_twice_in_one_haystack_is_kept_once_or_refused(tmp_path: Path) -> None:
    record = longmemeval_instance("q1")
    for key in ("haystack_session_ids", "haystack_dates", "haystack_sessions"):
        record[key] = [*record[key], record[key][0]]  # type: ignore[index]
    path = tmp_path / "longmemeval_s.json"
    path.write_text(json.dumps([record]))
    ((_, turns),) = read_longmemeval(path)
    assert [t.turn_id for t in turns] == ["sh_1:0", "sh_1:1", "answer_q1:0", "answer_q1:1"]
    record["haystack_sessions"][2] = [{"role": "user", "content": "Other words."}]  # type: ignore[index]
    path.write_text(json.dumps([record]))
    with pytest.raises(InputError, match="session 'sh_1' differs") as info:
        read_longmemeval(path)
    assert info.value.field == "[0].haystack_sessions[2]"


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda r: r.pop("haystack_dates"), "[0].haystack_dates"),
        (lambda r: r["haystack_dates"].pop(), "[0]"),
        (lambda r: r.__setitem__("question_id", "has space"), "space"),
        (lambda r: r["haystack_dates"].__setitem__(1, "May 28"), "[0].haystack_dates[1]"),
        (lambda r: r["haystack_sessions"][1][0].pop("role"), "[0].haystack_sessions[1][0].role"),
        (lambda r: r["haystack_sessions"][0].__setitem__(1, "hi"), "[0].haystack_sessions[0][1]"),
        (lambda r: r["haystack_sessions"][1][1].__setitem__("content", 7), "[1][1].content"),
    ],
)
def test_malformed_longmemeval_names_the_instance_path(
    tmp_path: Path, mutate: object, field: str
) -> None:
    record = longmemeval_instance()
    mutate(record)  # type: ignore[operator]
    path = tmp_path / "longmemeval.json"
    path.write_text(json.dumps([record]))
    with pytest.raises(InputError) as info:
        read_longmemeval(path)
    assert info.value.field is not None and info.value.field.endswith(field)


def test_longmemeval_empty_messages_are_left_out_and_long_ones_kept(tmp_path: Path) -> None:
    record = longmemeval_instance()
    record["haystack_sessions"][0][0]["content"] = "  "  # type: ignore[index]
    record["haystack_sessions"][1][1]["content"] = "x" * 50_000  # type: ignore[index]
    path = tmp_path / "longmemeval.json"
    path.write_text(json.dumps([record]))
    ((_, turns),) = read_longmemeval(path)
    assert [t.turn_id for t in turns] == ["sh_1:1", "answer_q1:0", "answer_q1:1"]
    assert len(turns[2].text) == 50_000
    record["haystack_sessions"][1][1]["content"] = "x" * 200_001  # type: ignore[index]
    path.write_text(json.dumps([record]))
    with pytest.raises(InputError, match="longer than 200000") as info:
        read_longmemeval(path)
    assert info.value.field == "[0].haystack_sessions[1][1].content"


def test_a_longmemeval_file_must_be_a_list(tmp_path: Path) -> None:
    path = tmp_path / "longmemeval.json"
    path.write_text(json.dumps(longmemeval_instance()))
    with pytest.raises(InputError, match="JSON list of instances"):
        read_longmemeval(path)


def test_query_rows(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "a", "query": "dogs?"}\n{"id": "b", "query": "cats", "space": "s2"}\n')
    rows = parse_query_rows(path)
    assert [(r.id, r.query, r.space) for r in rows] == [("a", "dogs?", None), ("b", "cats", "s2")]
    path.write_text('{"id": "a", "query": ""}\n')
    with pytest.raises(InputError) as info:
        parse_query_rows(path)
    assert (info.value.line, info.value.field) == (1, "query")
    path.write_text('{"id": "a", "query": "x", "space": "no spaces allowed"}\n')
    with pytest.raises(InputError, match="invalid space"):
        parse_query_rows(path)
