"""The LLM path of `add-text`: the model builds temporary MemoryUnits (§3.2) as JSON, validated
with pydantic (the client retries invalid answers); each then passes the same checks as a
JSONL line."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..llm import LLMClient
from .models import FactInput

SYSTEM = """You turn text into memory units for a fact memory.
A memory unit is one fact: subject, relation, object, category, and optionally context,
valid_from and confidence.
- subject: the entity the fact is about, as named in the text ("Alice", "Acme Corp").
- relation: a short snake_case predicate ("lives_in", "works_at", "employer", "likes").
  Reuse the same relation for the same kind of fact.
- object: the value, as named in the text.
- category: a coarse type of the object: location, organisation, person, role, preference,
  language, possession, activity, education, contact, or general.
- context: the condition under which the fact holds ("in the evening", "at work"); null if it
  always holds.
- valid_from: when the fact started to hold, ISO-8601 ("2021", "2021-03", "2021-03-04"); null
  if the text does not say.
- confidence: 0..1, how certain the text is (hedged or second-hand claims get less).
Extract only facts the text states. Reply with JSON: {"facts": [ ...units... ]}."""


MAX_UNITS = 32  # units asked for per text


class ExtractedUnit(BaseModel):
    model_config = ConfigDict(extra="ignore")

    subject: str
    relation: str
    object: str
    category: str = "general"
    context: str | None = None
    valid_from: str | None = None
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)


class ExtractedUnits(BaseModel):
    facts: list[ExtractedUnit]


def extract_with_llm(
    llm: LLMClient, text: str, *, source: str | None = None
) -> tuple[list[FactInput], int]:
    """Facts the model found, and how many of its units failed validation (dropped)."""
    schema = ExtractedUnits.model_json_schema()
    # a bound an enforcing endpoint (a grammar on llama.cpp) keeps a small model from looping
    schema["properties"]["facts"]["maxItems"] = MAX_UNITS
    answer = llm.complete_json(system=SYSTEM, user=text, schema=ExtractedUnits, json_schema=schema)
    facts: list[FactInput] = []
    dropped = 0
    for unit in answer.facts:
        try:
            facts.append(
                FactInput.model_validate(
                    {**unit.model_dump(exclude_none=True), "source": source}
                    if source
                    else unit.model_dump(exclude_none=True)
                )
            )
        except ValidationError:
            dropped += 1
    return facts, dropped
