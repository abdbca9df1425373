"""Turn → entities and relations by an LLM: the answer's schema, the prompt, and
`LLMExtractor`, which validates each answer with pydantic and falls back to the offline rules
(extract.py) when the LLM keeps failing and settings allow it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from ..errors import LLMError
from .extract import OfflineExtractor
from .models import ExtractedEntity, ExtractedRelation, TurnExtraction, TurnInput
from .text import (
    name_key,
)

if TYPE_CHECKING:
    from ..llm import LLMClient


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("blank text")
    return value


# Text that is not blank (a model may well answer " "), kept verbatim, with a length cap.
_Name = Annotated[str, StringConstraints(min_length=1, max_length=120), AfterValidator(_not_blank)]
_Fact = Annotated[str, StringConstraints(min_length=1, max_length=400), AfterValidator(_not_blank)]
# A type is a word or a short phrase (the pattern also becomes part of the grammar an enforcing
# endpoint decodes with, which keeps a small model from pasting the turn into it).
_Word = Annotated[
    str,
    StringConstraints(strip_whitespace=True, max_length=60, pattern=r"^[A-Za-z][A-Za-z0-9 _/-]*$"),
]


class LLMEntity(BaseModel):
    name: _Name
    type: _Word


class LLMRelation(BaseModel):
    source: _Name
    target: _Name
    type: _Word
    fact: _Fact

    @field_validator("type")
    @classmethod
    def snake_case(cls, value: str) -> str:
        return re.sub(r"[^a-z0-9]+", "_", value.lower()).strip("_") or "related_to"


class LLMTurnExtraction(BaseModel):
    turn_id: str
    entities: list[LLMEntity] = Field(default_factory=list)
    relations: list[LLMRelation] = Field(default_factory=list)

    @model_validator(mode="after")
    def endpoints_are_entities(self) -> LLMTurnExtraction:
        names = {name_key(e.name) for e in self.entities}
        for rel in self.relations:
            for end in (rel.source, rel.target):
                if name_key(end) not in names:
                    raise ValueError(
                        f"relation endpoint {end!r} of turn {self.turn_id} is not in its entities"
                    )
        return self


class LLMExtractionAnswer(BaseModel):
    turns: list[LLMTurnExtraction]


MAX_PER_TURN = 12  # entities, and relations, one turn may bring (OfflineExtractor's cap)


def answer_schema(turns: Sequence[TurnInput]) -> dict[str, Any]:
    """LLMExtractionAnswer's JSON schema narrowed to one request: one item per turn, `turn_id`
    one of the turns', at most MAX_PER_TURN entities and relations each. An endpoint that
    enforces the schema (a grammar on llama.cpp) cannot then invent turns or run on forever."""
    schema = LLMExtractionAnswer.model_json_schema()
    listed = schema["properties"]["turns"]
    listed["minItems"] = listed["maxItems"] = len(turns)
    turn = schema["$defs"]["LLMTurnExtraction"]["properties"]
    turn["turn_id"]["enum"] = [t.turn_id for t in turns]
    for key in ("entities", "relations"):
        turn[key]["maxItems"] = MAX_PER_TURN
    return schema


SYSTEM_PROMPT = (
    "You turn conversation turns into a knowledge graph. For each turn return its entities "
    "(people, places, organisations, objects, activities, events, dates; `type` is one lower-case "
    "word) and the relations the turn states between them: `source` and `target` are entity "
    "names from the same turn, `type` a short snake_case verb phrase, `fact` one sentence in the "
    "turn's words. Resolve 'I'/'me'/'my' to the speaker's name and relative dates against the "
    "turn's date. Answer with one JSON object: "
    '{"turns": [{"turn_id": str, "entities": [{"name": str, "type": str}], '
    '"relations": [{"source": str, "target": str, "type": str, "fact": str}]}]}'
)


def llm_user_prompt(turns: Sequence[TurnInput]) -> str:
    from .text import from_epoch_ms

    lines = []
    for turn in turns:
        when = from_epoch_ms(turn.timestamp).date().isoformat() if turn.timestamp else "unknown"
        lines.append(f"[{turn.turn_id}] ({when}) {turn.speaker}: {turn.text}")
    return "Turns:\n" + "\n".join(lines)


class LLMExtractor:
    """Extraction by an LLM, `per_call` turns per request; answers that do not validate are
    retried by the client, then (with `fallback`) replaced by the offline rules."""

    name = "llm"

    def __init__(
        self, llm: LLMClient, *, fallback: OfflineExtractor | None, per_call: int = 8
    ) -> None:
        self.llm = llm
        self.fallback = fallback
        self.per_call = per_call
        self.fallbacks = 0

    def extract(self, turns: Sequence[TurnInput], speakers: frozenset[str]) -> list[TurnExtraction]:
        out: list[TurnExtraction] = []
        for start in range(0, len(turns), self.per_call):
            chunk = turns[start : start + self.per_call]
            out.extend(self._chunk(chunk, speakers))
        return out

    def _chunk(self, turns: Sequence[TurnInput], speakers: frozenset[str]) -> list[TurnExtraction]:
        try:
            answer = self.llm.complete_json(
                system=SYSTEM_PROMPT,
                user=llm_user_prompt(turns),
                schema=LLMExtractionAnswer,
                json_schema=answer_schema(turns),
            )
        except LLMError:
            if self.fallback is None:
                raise
            self.fallbacks += 1
            return self.fallback.extract(turns, speakers)
        by_id = {t.turn_id: t for t in answer.turns}
        out = []
        for turn in turns:
            got = by_id.get(turn.turn_id)
            if got is None:
                # The model skipped a turn: the rules fill the gap rather than losing it.
                out.append(
                    self.fallback.extract_one(turn, speakers) if self.fallback else TurnExtraction()
                )
                continue
            out.append(
                TurnExtraction(
                    tuple(ExtractedEntity(e.name.strip(), e.type.lower()) for e in got.entities),
                    tuple(
                        ExtractedRelation(r.source, r.target, r.type, r.fact) for r in got.relations
                    ),
                )
            )
        return out
