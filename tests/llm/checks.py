"""What every stored answer must satisfy, whoever produced it: the checks the llm suite runs
over a whole space after the model wrote to it."""

from __future__ import annotations

from collections import Counter
from typing import Any

from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import dump_records
from graphmem_neo4j.store.params import text_problem

# label → properties that must be non-blank text
REQUIRED_TEXT = {
    "Entity": ("name", "name_key"),
    "MemoryUnit": ("subject", "relation", "object"),
    "Subject": ("name",),
    "Insight": ("text",),
    "Task": ("text",),
    "Turn": ("text",),
}


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def stored_problems(memory: GraphMemory, space: str) -> list[str]:
    """Every blank required text, blank list item, or text no engine should hold."""
    found: list[str] = []
    for record in dump_records(memory, space):
        props = record["props"]
        where = f"{record.get('label') or record.get('type')} {record.get('id', '')}"
        for key in REQUIRED_TEXT.get(record.get("label", ""), ()):
            if not isinstance(props.get(key), str) or not props[key].strip():
                found.append(f"{where}: {key} is {props.get(key)!r}")
        if record.get("type") == "RELATES":
            for key in ("type", "fact"):
                if not str(props.get(key) or "").strip():
                    found.append(f"{where} RELATES: {key} is {props.get(key)!r}")
        for key, value in props.items():
            for text in _strings(value):
                problem = text_problem(text)
                if problem is not None:
                    found.append(f"{where}.{key}: {problem}")
            if isinstance(value, list) and key in ("insights", "workflow"):
                found += [f"{where}.{key}: blank item" for v in value if not str(v).strip()]
    return found


def shape(memory: GraphMemory, space: str) -> Counter[str]:
    """Nodes per label and relationships per type, with their ids: what a rerun must keep."""
    got: Counter[str] = Counter()
    for record in dump_records(memory, space):
        if record["kind"] == "node":
            got[f"{record['label']}:{record['id']}"] += 1
        else:
            got[f"{record['type']}:{record['source']}->{record['target']}"] += 1
    return got
