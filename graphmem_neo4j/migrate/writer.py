"""A migration plan into graphmem: Subjects, MemoryUnits with the source's valid and
transaction times, Turns. Idempotent: what a space already holds is not written again, so a
second run stores nothing and a run after a crash stores the rest."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from ..facts.keys import name_key
from ..facts.models import FactInput, UnitStatus
from ..facts.parsing import normalise
from ..facts.writes import UnitWrites, unit_row
from ..schema import now_ms
from .plan import FactRow, SpacePlan

Progress = Callable[[int], None]


def _noop(_: int) -> None:
    return None


@dataclasses.dataclass
class SpaceResult:
    space: str
    entities_stored: int = 0
    facts_stored: int = 0
    facts_reclosed: int = 0
    facts_unchanged: int = 0
    turns_stored: int = 0
    turns_unchanged: int = 0

    def stored(self) -> int:
        return self.entities_stored + self.facts_stored + self.facts_reclosed + self.turns_stored

    def as_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "stored": self.stored()}


class PlanWriter:
    def __init__(self, memory: Any, *, on_progress: Progress | None = None) -> None:
        self.memory = memory
        self.store = memory.store
        self.batch = memory.settings.batch_size
        self.advance = on_progress or _noop

    def _embed(self, texts: Sequence[str]) -> dict[str, list[float]]:
        unique = list(dict.fromkeys(texts))
        vectors: list[list[float]] = self.memory.embedder.embed(unique) if unique else []
        return dict(zip(unique, vectors, strict=True))

    def write(self, plan: SpacePlan) -> SpaceResult:
        self.memory.ensure_space(plan.space)
        result = SpaceResult(plan.space)
        self._turns(plan, result)
        self._entities(plan, result)
        self._facts(plan, result)
        return result

    # --- entities ----------------------------------------------------------------------------
    def _entities(self, plan: SpacePlan, result: SpaceResult) -> None:
        by_key = {}
        for e in plan.entities:
            key = name_key(e.name)
            if key and key not in by_key:
                by_key[key] = e
        keys = list(by_key)
        for start in range(0, len(keys), self.batch):
            chunk = keys[start : start + self.batch]
            have = {
                r["key"]
                for r in self.store.read(
                    "migrate/existing_subjects", {"space": plan.space, "keys": chunk}
                )
            }
            new = [k for k in chunk if k not in have]
            vectors = self._embed([by_key[k].name for k in new])
            rows = [
                {
                    "key": k,
                    "name": by_key[k].name,
                    "embedding": vectors[by_key[k].name],
                    "created_at": by_key[k].created_at,
                }
                for k in new
            ]
            if rows:
                self.store.write_batches(
                    "migrate/write_subjects",
                    rows,
                    batch_size=self.batch,
                    params={"space": plan.space, "now": now_ms()},
                )
            result.entities_stored += len(rows)
            self.advance(len(chunk))

    # --- facts -------------------------------------------------------------------------------
    def _facts(self, plan: SpacePlan, result: SpaceResult) -> None:
        writes = UnitWrites(self.store, self.batch)
        facts = list({f.source_id: f for f in plan.facts}.values())
        for start in range(0, len(facts), self.batch):
            chunk = facts[start : start + self.batch]
            stored = {
                str(r["id"]): (str(r["status"]), r["valid_to"])
                for r in self.store.read(
                    "migrate/existing_units",
                    {"space": plan.space, "ids": [f.source_id for f in chunk]},
                )
            }
            new = [f for f in chunk if f.source_id not in stored]
            changed = []
            for f in chunk:
                if f.source_id in stored:
                    want = (_status(f).value, f.valid_to)
                    if stored[f.source_id] != want:
                        changed.append({"id": f.source_id, "status": want[0], "valid_to": want[1]})
            if new:
                writes.write_units(plan.space, self._unit_rows(new))
            if changed:
                self.store.write(
                    "migrate/set_validity",
                    {"space": plan.space, "rows": changed, "now": now_ms()},
                )
            result.facts_stored += len(new)
            result.facts_reclosed += len(changed)
            result.facts_unchanged += len(chunk) - len(new) - len(changed)
            self.advance(len(chunk))

    def _unit_rows(self, rows: Sequence[FactRow]) -> list[dict[str, Any]]:
        facts = []
        for row in rows:
            fact = normalise(
                FactInput(
                    id=row.source_id,
                    subject=row.subject,
                    relation=row.relation,
                    object=row.object,
                    category=row.category,
                ),
                now=row.valid_from,
            )
            facts.append(
                (
                    dataclasses.replace(
                        fact,
                        valid_from=row.valid_from,
                        valid_from_given=True,
                        text=row.text or fact.text,
                        source=_source(row),
                    ),
                    row,
                )
            )
        texts = [t for fact, _ in facts for t in (fact.text, fact.subject, fact.category)]
        vectors = self._embed(texts)
        out = []
        for fact, row in facts:
            unit = unit_row(fact, _status(row), vectors)
            unit["props"]["recorded_at"] = row.recorded_at
            if row.valid_to is not None:
                unit["props"]["valid_to"] = row.valid_to
            out.append(unit)
        return out

    # --- turns -------------------------------------------------------------------------------
    def _turns(self, plan: SpacePlan, result: SpaceResult) -> None:
        if not plan.turns:
            return
        from ..conversation.models import TurnInput

        turns = sorted(plan.turns, key=lambda t: (t.timestamp, t.turn_id))
        mentioned: dict[str, list[str]] = {}
        for tid, entity in plan.mentions:
            mentioned.setdefault(tid, []).append(entity)
        report = self.memory.conversation.add_turns(
            [
                TurnInput(
                    session=t.session,
                    turn_id=t.turn_id,
                    speaker=t.speaker,
                    text=t.text,
                    timestamp=t.timestamp,
                    metadata={"source_id": t.source_id, "mentions": mentioned.get(t.turn_id, [])},
                    source="graphiti",
                )
                for t in turns
            ],
            space=plan.space,
            on_progress=self.advance,
            forget_every=0,
        )
        result.turns_stored += int(report.turns_written)
        result.turns_unchanged += int(report.turns_skipped)


def _status(row: FactRow) -> UnitStatus:
    return UnitStatus.SUPERSEDED if row.closed else UnitStatus.ACTIVE


def _source(row: FactRow) -> str:
    if row.evidence:
        return "graphiti episodes: " + " ".join(row.evidence)
    return "mem0" if row.source_id.startswith("mem0-") else "graphiti"
