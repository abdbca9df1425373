"""Structured facts JSONL → validated, normalised facts. Pure: no database.

Every problem becomes an InputError naming the file, the line and the field, and a file is
checked completely before anything from it is stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import InputError, jsonl_records
from .keys import (
    category_key,
    context_key,
    name_key,
    parse_time,
    relation_key,
    unit_id,
    unit_text,
)
from .models import Fact, FactInput

DEFAULT_CONFIDENCE = 0.8


def validation_error(e: ValidationError, *, source: str | None, line: int | None) -> InputError:
    """The first problem of a pydantic error, as an InputError naming its field."""
    first = e.errors()[0]
    loc = first.get("loc") or ()
    name = str(loc[0]) if loc else None
    message = str(first.get("msg", "invalid value"))
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    if first.get("type") == "missing":
        message = "missing required field"
    elif first.get("type") == "extra_forbidden":
        message = "unknown field"
    return InputError(message, source=source, line=line, field=name)


def parse_fact(
    data: Mapping[str, Any] | FactInput, *, source: str | None = None, line: int | None = None
) -> FactInput:
    if isinstance(data, FactInput):
        return data
    if not isinstance(data, Mapping):
        raise InputError("expected a JSON object", source=source, line=line)
    try:
        return FactInput.model_validate(dict(data))
    except ValidationError as e:
        raise validation_error(e, source=source, line=line) from e


def read_facts_file(path: Path) -> list[tuple[int, FactInput]]:
    """Every fact of a JSONL file with its line number; blank lines are skipped."""
    source = str(path)
    found = [
        (number, parse_fact(data, source=source, line=number))
        for number, data in jsonl_records(path)
    ]
    if not found:
        raise InputError("no facts in the file", source=source)
    return found


def normalise(
    item: FactInput,
    *,
    now: int,
    line: int | None = None,
    default_confidence: float = DEFAULT_CONFIDENCE,
    source_name: str | None = None,
) -> Fact:
    """A FactInput with its keys, valid time (default: `now`), confidence and id filled in."""
    s_key = name_key(item.subject)
    o_key = name_key(item.object)
    r_key = relation_key(item.relation)
    c_key = category_key(item.category)
    x_key = context_key(item.context)
    for field_name, key in (("subject", s_key), ("object", o_key), ("relation", r_key)):
        if not key:
            raise InputError(
                "has no letters or digits", source=source_name, line=line, field=field_name
            )
    if not c_key:
        raise InputError(
            "has no letters or digits", source=source_name, line=line, field="category"
        )
    valid_from = parse_time(item.valid_from) if item.valid_from is not None else now
    context = item.context if x_key is not None else None
    fid = item.id or unit_id(
        s_key,
        r_key,
        o_key,
        c_key,
        x_key,
        str(valid_from) if item.valid_from is not None else None,
        item.source,
    )
    return Fact(
        id=fid,
        subject=item.subject,
        subject_key=s_key,
        relation=item.relation,
        relation_key=r_key,
        object=item.object,
        object_key=o_key,
        category=item.category,
        category_key=c_key,
        context=context,
        context_key=x_key,
        confidence=item.confidence if item.confidence is not None else default_confidence,
        valid_from=valid_from,
        valid_from_given=item.valid_from is not None,
        depends_on=tuple(dict.fromkeys(item.depends_on)),
        source=item.source,
        text=unit_text(item.subject, item.relation, item.object, context),
        line=line,
        id_given=item.id is not None,
    )


def normalise_all(
    items: Iterable[tuple[int | None, FactInput]],
    *,
    now: int,
    default_confidence: float = DEFAULT_CONFIDENCE,
    source_name: str | None = None,
) -> list[Fact]:
    """Normalise a batch and check it on its own: one id never names two different facts, and
    a unit never depends on itself. Facts without valid_from get `now`, `now + 1`, ..."""
    facts: list[Fact] = []
    seen: dict[str, Fact] = {}
    clock = now
    for line, item in items:
        fact = normalise(
            item,
            now=clock,
            line=line,
            default_confidence=default_confidence,
            source_name=source_name,
        )
        if fact.id in fact.depends_on:
            raise InputError(
                "a unit cannot depend on itself", source=source_name, line=line, field="depends_on"
            )
        earlier = seen.get(fact.id)
        if earlier is not None and earlier.fingerprint() != fact.fingerprint():
            raise InputError(
                f"id {fact.id!r} already names another fact (line {earlier.line})",
                source=source_name,
                line=line,
                field="id",
            )
        seen.setdefault(fact.id, fact)
        facts.append(fact)
        if not fact.valid_from_given:
            clock += 1  # facts without a time are ordered by arrival, one millisecond apart
    return facts
