import json
from pathlib import Path

import pytest

from graphmem_neo4j.errors import InputError
from graphmem_neo4j.facts.models import FactInput
from graphmem_neo4j.facts.parsing import normalise, normalise_all, parse_fact, read_facts_file

GOOD = {
    "subject": "Alice",
    "relation": "lives in",
    "object": "Paris",
    "category": "location",
}


def write(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "facts.jsonl"
    path.write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n",
        encoding="utf-8",
    )
    return path


def test_a_good_file_is_read_with_line_numbers(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD, "", {**GOOD, "object": "London", "confidence": 1})
    items = read_facts_file(path)
    assert [line for line, _ in items] == [1, 3]
    assert items[1][1].confidence == 1.0


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ({k: v for k, v in GOOD.items() if k != "object"}, "object", "missing required field"),
        ({**GOOD, "subject": 7}, "subject", "valid string"),
        ({**GOOD, "subject": "   "}, "subject", "must not be empty"),
        ({**GOOD, "confidence": 1.5}, "confidence", "between 0 and 1"),
        ({**GOOD, "confidence": "high"}, "confidence", "valid number"),
        ({**GOOD, "valid_from": "last year"}, "valid_from", "ISO-8601"),
        ({**GOOD, "valid_from": 2021}, "valid_from", "valid string"),
        ({**GOOD, "depends_on": "a1"}, "depends_on", "valid list"),
        ({**GOOD, "colour": "red"}, "colour", "unknown field"),
        ({**GOOD, "relation": "x}) DETACH DELETE n //"}, "relation", "no brackets"),
        ({**GOOD, "category": "$category"}, "category", "no brackets"),
        ({**GOOD, "id": "a b"}, "id", "letters, digits"),
    ],
)
def test_bad_fields_name_file_line_and_field(
    tmp_path: Path, line: dict[str, object], field: str, message: str
) -> None:
    path = write(tmp_path, GOOD, line)
    with pytest.raises(InputError) as caught:
        read_facts_file(path)
    err = caught.value
    assert (err.source, err.line, err.field) == (str(path), 2, field)
    assert message in err.reason
    assert f"{path}:2" in str(err)


def test_malformed_json_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD, '{"subject": "Bob",')
    with pytest.raises(InputError, match="malformed JSON") as caught:
        read_facts_file(path)
    assert caught.value.line == 2


def test_a_line_that_is_not_an_object_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="JSON object"):
        read_facts_file(write(tmp_path, "[1, 2]"))


def test_an_empty_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no facts"):
        read_facts_file(write(tmp_path, ""))


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        read_facts_file(tmp_path / "nope.jsonl")


def test_cypher_looking_values_are_plain_text() -> None:
    fact = parse_fact({**GOOD, "object": "Paris'}) MATCH (n) DETACH DELETE n //"})
    assert fact.object.startswith("Paris'})")


def test_normalise_fills_keys_time_and_a_content_id() -> None:
    fact = normalise(FactInput(**GOOD, context="in the evening"), now=1000)
    assert fact.key == ("alice", "lives_in", "evening")
    assert fact.valid_from == 1000 and not fact.valid_from_given
    assert fact.confidence == 0.8
    assert fact.text == "Alice lives in Paris (in the evening)"
    again = normalise(FactInput(**GOOD, context="Evening"), now=99999)
    assert again.id == fact.id  # no valid_from given: the id does not depend on the clock


def test_a_given_valid_from_is_part_of_the_id() -> None:
    a = normalise(FactInput(**GOOD, valid_from="2021"), now=0)
    b = normalise(FactInput(**GOOD, valid_from="2022"), now=0)
    assert a.id != b.id and a.valid_from < b.valid_from


def test_a_batch_orders_undated_facts_by_arrival() -> None:
    facts = normalise_all(
        [(1, FactInput(**GOOD)), (2, FactInput(**{**GOOD, "object": "Rome"}))], now=5000
    )
    assert [f.valid_from for f in facts] == [5000, 5001]


def test_one_id_for_two_facts_is_refused() -> None:
    with pytest.raises(InputError, match="already names another fact") as caught:
        normalise_all(
            [(1, FactInput(**GOOD, id="x")), (4, FactInput(**{**GOOD, "object": "Rome"}, id="x"))],
            now=0,
            source_name="f.jsonl",
        )
    assert (caught.value.line, caught.value.field) == (4, "id")


def test_a_unit_cannot_depend_on_itself() -> None:
    with pytest.raises(InputError, match="itself"):
        normalise_all([(1, FactInput(**GOOD, id="x", depends_on=["x"]))], now=0)
