"""A dump loads into either engine or into neither: values one engine cannot store are refused
before anything is written, with the line and the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graphmem_neo4j.errors import InputError
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import export_space, import_dump

BAD_VALUES = {
    "map": {"city": "Porto"},
    "null in a list": ["a", None],
    "list of lists": [[1], [2]],
    "strings and numbers": ["a", 1],
    "booleans and numbers": [True, 1],
}


def _dump(memory: GraphMemory, space: str, path: Path) -> list[dict[str, Any]]:
    memory.add_turns(
        [{"speaker": "Maya", "text": f"I moved to Porto in {year}."} for year in (2022, 2023)],
        space=space,
        session="s1",
    )
    with path.open("w", encoding="utf-8") as out:
        export_space(memory, space, out)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize("case", BAD_VALUES)
def test_a_value_one_engine_cannot_store_is_refused_up_front(
    memory: GraphMemory, space: str, tmp_path: Path, case: str
) -> None:
    records = _dump(memory, space, tmp_path / "good.jsonl")
    last_turn = max(i for i, r in enumerate(records) if r.get("label") == "Turn")
    records[last_turn]["props"]["metadata"] = BAD_VALUES[case]
    bad = _write(tmp_path / "bad.jsonl", records)
    with pytest.raises(InputError) as caught:
        import_dump(memory, bad, space=space + "-copy")
    assert caught.value.line == last_turn + 1
    assert caught.value.field == "props.metadata"
    assert [s["id"] for s in memory.spaces()] == [space]  # nothing written, not even the space


def test_numbers_mixed_in_a_list_load_on_both_engines(
    memory: GraphMemory, space: str, tmp_path: Path
) -> None:
    records = _dump(memory, space, tmp_path / "good.jsonl")
    first_turn = next(i for i, r in enumerate(records) if r.get("label") == "Turn")
    records[first_turn]["props"]["scores"] = [1, 2.5]
    records = [r for r in records if r["kind"] != "footer"]
    import_dump(memory, _write(tmp_path / "mixed.jsonl", records), space=space + "-copy")
    assert {s["id"] for s in memory.spaces()} == {space, space + "-copy"}


def test_a_keyed_relationship_without_an_id_is_refused(
    memory: GraphMemory, space: str, tmp_path: Path
) -> None:
    records = _dump(memory, space, tmp_path / "good.jsonl")
    entity = next(r for r in records if r.get("label") == "Entity")
    records.insert(
        -1,
        {
            "kind": "rel",
            "type": "RELATES",
            "source": entity["id"],
            "source_label": "Entity",
            "target": entity["id"],
            "target_label": "Entity",
            "props": {"fact": "moved"},
        },
    )
    with pytest.raises(InputError) as caught:
        import_dump(memory, _write(tmp_path / "bad.jsonl", records), space=space + "-copy")
    assert caught.value.field == "props.id"
    assert [s["id"] for s in memory.spaces()] == [space]
