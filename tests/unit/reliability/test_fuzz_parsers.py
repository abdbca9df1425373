"""Property-based fuzzing of every ingestion parser: whatever bytes or JSON values come in, a
parser either returns typed records that the engines can store, or raises one InputError that
names where the problem is. Never another exception (a traceback in the CLI)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem_neo4j.conversation.readers import (
    MAX_TEXT,
    parse_query_rows,
    parse_turn_row,
    read_jsonl,
    read_locomo,
)
from graphmem_neo4j.errors import InputError, jsonl_records, parse_json_line
from graphmem_neo4j.experience.parsing import from_alfworld, from_jsonl, parse_file
from graphmem_neo4j.facts.parsing import parse_fact, read_facts_file
from graphmem_neo4j.insights.parsing import read_tasks, task_from_dict
from graphmem_neo4j.llm import parse_json_answer
from graphmem_neo4j.portability import _read_dump, _validate
from graphmem_neo4j.spaces import validate_space
from graphmem_neo4j.store.params import check_params, text_problem

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Any code point, lone surrogates included (they reach Python from a "\ud800" JSON escape),
# with the troublesome ones made frequent. st.text drops surrogates whatever its alphabet, so
# texts are joined from characters.
plain = st.characters(exclude_categories=("Cs", "Cc"))
quoting = plain | st.sampled_from("'\"`\\{}()$/*")
surrogates = plain | st.sampled_from("\ud800\udbff\udc00\udfff")
controls = st.characters(exclude_categories=("Cs",)) | st.sampled_from("\x00\x07\x1b\n\r\t")
chars = st.one_of(plain, quoting, surrogates, controls)


def text_of(min_size: int = 0, max_size: int = 40) -> st.SearchStrategy[str]:
    return st.one_of(
        *(
            st.lists(alphabet, min_size=min_size, max_size=max_size).map("".join)
            for alphabet in (plain, quoting, surrogates, controls)
        )
    )


texts = text_of()
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | texts
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text_of(max_size=12), inner),
    max_leaves=10,
)


def field(plausible: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly a value of the right kind, sometimes any JSON value."""
    return st.one_of(plausible, plausible, plausible, json_values)


def records_with(spec: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects with the expected keys and values of the right kind (any characters in the
    texts), or the same spoiled: a key missing, some values of any JSON type, unknown keys."""
    clean = st.fixed_dictionaries(spec)
    full = st.fixed_dictionaries({k: field(v) for k, v in spec.items()})
    drop = st.sets(st.sampled_from(sorted(spec)), max_size=1)
    extra = st.dictionaries(text_of(max_size=8), scalars, max_size=2)
    spoiled = st.builds(
        lambda a, gone, b: {**{k: v for k, v in a.items() if k not in gone}, **b}, full, drop, extra
    )
    return clean | spoiled


words = text_of(1, 30)
identifiers = st.from_regex(r"[a-z][a-z_ ]{0,10}", fullmatch=True)
ids = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,12}", fullmatch=True)
times = st.sampled_from(["2021", "2021-03", "2021-03-04T10:00:00+02:00", "10000-01-01"]) | words
numbers = st.floats() | st.integers(min_value=-3, max_value=3)


def storable(value: Any) -> None:
    """A parsed record holds only values an engine stores exactly."""
    check_params({"v": value}, "falkordb")


def only_input_errors(parse: Callable[[], Any]) -> Any:
    try:
        return parse()
    except InputError as e:
        str(e).encode("utf-8")  # the message prints
        return None


_SCRATCH = Path(tempfile.mkdtemp(prefix="graphmem-fuzz-")) / "input.jsonl"


def temp_file(content: bytes) -> Path:
    """One scratch file, rewritten for every example (hypothesis cannot use tmp_path)."""
    _SCRATCH.write_bytes(content)
    return _SCRATCH


lines_of_json = st.lists(
    st.one_of(
        json_values.map(lambda v: json.dumps(v).encode()),
        st.binary(max_size=40),
        st.just(b""),
    ),
    max_size=5,
).map(lambda lines: b"\n".join(lines))


# --- conversation ----------------------------------------------------------------------------

TURN_ROW = records_with(
    {"session": ids, "turn_id": ids, "speaker": words, "text": words, "timestamp": times}
)


@FUZZ
@given(st.one_of(json_values, TURN_ROW))
def test_turn_rows(row: Any) -> None:
    turn = only_input_errors(lambda: parse_turn_row(row, source="f.jsonl", line=3))
    if turn is not None:
        for text in (turn.session, turn.turn_id, turn.speaker, turn.text):
            assert text == text.strip() and text and text_problem(text) is None
        assert len(turn.text) <= MAX_TEXT
        json.dumps(turn.metadata, allow_nan=False).encode("utf-8")


@FUZZ
@given(lines_of_json)
def test_conversation_files(content: bytes) -> None:
    path = temp_file(content)
    for read in (lambda: read_jsonl(path), lambda: parse_query_rows(path)):
        only_input_errors(read)
    only_input_errors(lambda: read_locomo(path))


# --- insights --------------------------------------------------------------------------------

STEP = records_with({"role": words, "action": words, "observation": words})
TASK = records_with(
    {
        "id": ids,
        "query": words,
        "status": st.sampled_from(["resolved", "failed", "FAILED", "done"]),
        "answer": words,
        "feedback": words,
        "steps": st.lists(STEP, max_size=3),
    }
)


@FUZZ
@given(st.one_of(json_values, TASK))
def test_task_rows(row: Any) -> None:
    task = only_input_errors(lambda: task_from_dict(row, source="t.jsonl", line=1))
    if task is not None:
        storable([task.id, task.query, task.answer, task.feedback])
        storable([[s.role, s.action, s.observation] for s in task.steps])


@FUZZ
@given(lines_of_json)
def test_task_files(content: bytes) -> None:
    path = temp_file(content)
    only_input_errors(lambda: read_tasks(path))


# --- experience ------------------------------------------------------------------------------

RUN = records_with(
    {
        "id": ids,
        "task": words,
        "reward": numbers,
        "initial_observation": words,
        "metadata": st.dictionaries(words, scalars, max_size=2),
        "steps": st.lists(records_with({"action": words, "observation": words}), max_size=3),
    }
)
TURN = records_with(
    {
        "from": st.sampled_from(["human", "gpt", "system"]),
        "value": words | words.map(lambda w: f"Your task is to: {w}"),
    }
)
ALFWORLD = records_with(
    {"id": ids, "reward": numbers, "conversations": st.lists(TURN, min_size=1, max_size=5)}
)


@FUZZ
@given(st.one_of(RUN, ALFWORLD), st.sampled_from(["expert", "exploration"]))
def test_trajectory_rows(record: dict[str, Any], kind: Any) -> None:
    for read in (from_jsonl, from_alfworld):
        run = only_input_errors(
            lambda read=read: read(record, kind=kind, source="r.jsonl", line=1)  # type: ignore[misc]
        )
        if run is not None:
            storable([run.id, run.task, run.initial_observation, run.reward])
            storable([[s.action, s.observation] for s in run.steps])


@FUZZ
@given(lines_of_json)
def test_trajectory_files(content: bytes) -> None:
    path = temp_file(content)
    only_input_errors(lambda: parse_file(path, kind="expert"))


# --- facts -----------------------------------------------------------------------------------

FACT = records_with(
    {
        "id": ids,
        "subject": words,
        "relation": identifiers,
        "object": words,
        "category": identifiers,
        "context": words,
        "valid_from": times,
        "confidence": numbers,
        "depends_on": st.lists(ids, max_size=2),
        "source": words,
    }
)


@FUZZ
@given(st.one_of(json_values, FACT))
def test_fact_rows(row: Any) -> None:
    fact = only_input_errors(lambda: parse_fact(row, source="f.jsonl", line=1))
    if fact is not None:
        storable(fact.model_dump())


@FUZZ
@given(lines_of_json)
def test_fact_files(content: bytes) -> None:
    path = temp_file(content)
    only_input_errors(lambda: read_facts_file(path))


# --- shared readers, dumps, spaces, LLM answers ------------------------------------------------


@FUZZ
@given(st.binary(max_size=200))
def test_any_line_is_a_value_or_one_input_error(raw: bytes) -> None:
    value = only_input_errors(lambda: parse_json_line(raw, source="x", line=7))
    if value is None:
        return
    assert value == json.loads(raw.decode("utf-8-sig"))


@FUZZ
@given(lines_of_json)
def test_jsonl_records_number_every_non_blank_line(content: bytes) -> None:
    path = temp_file(content)
    try:
        numbers = [n for n, _ in jsonl_records(path)]
    except InputError as e:
        assert e.line is not None and 1 <= e.line <= content.count(b"\n") + 1
        return
    blank = {i for i, line in enumerate(content.split(b"\n"), 1) if not line.strip()}
    assert numbers == [i for i in range(1, content.count(b"\n") + 2) if i not in blank]


DUMP_RECORD = st.fixed_dictionaries(
    {"kind": st.sampled_from(["node", "rel", "footer", "other"])},
    optional={
        "label": st.sampled_from(["Turn", "Session", "Space", "Nope"]),
        "type": st.sampled_from(["HAS_TURN", "NEXT", "NOPE"]),
        "id": json_values,
        "source": json_values,
        "target": json_values,
        "source_label": st.sampled_from(["Session", "Turn"]),
        "target_label": st.sampled_from(["Session", "Turn"]),
        "props": st.dictionaries(text_of(max_size=10), json_values, max_size=4),
    },
)


@FUZZ
@given(st.lists(DUMP_RECORD, max_size=4))
def test_export_files(records: list[dict[str, Any]]) -> None:
    header = {"kind": "header", "format": "graphmem-export", "version": 1, "space": "s"}
    lines = [json.dumps(header), *(json.dumps(r) for r in records)]
    path = temp_file("\n".join(lines).encode())

    def read() -> None:
        _, found = _read_dump(path)
        _validate(found, str(path))
        for _, record in found:  # accepted records reach the store: they must be storable
            if record["kind"] in ("node", "rel"):
                assert not {"space"} & set(record["props"])
                storable(record["props"])

    only_input_errors(read)


@FUZZ
@given(text_of(max_size=80))
def test_space_names(name: str) -> None:
    accepted = only_input_errors(lambda: validate_space(name))
    if accepted is not None:
        assert accepted == name and name.isascii() and 1 <= len(name) <= 64


@FUZZ
@given(text_of(max_size=200) | json_values.map(json.dumps))
def test_llm_answers_validate_or_raise_value_errors(text: str) -> None:
    from graphmem_neo4j.conversation.extract_llm import LLMExtractionAnswer

    try:
        answer = parse_json_answer(text, LLMExtractionAnswer)
    except ValueError:
        return
    storable(answer.model_dump())
