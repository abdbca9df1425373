"""Before anything is written: which turns are new, where each goes in its session, and the
turn index (the space's logical clock) each one gets."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..store import GraphStore
from .models import TurnInput
from .text import content_hash


@dataclass(frozen=True)
class TurnPlan:
    turn: TurnInput
    seq: int
    prev: str | None
    """The turn before it in its session (the NEXT link to write), if any."""
    previous: tuple[str, str] | None
    """The speaker and text of the turn before it in its session, in this call or stored
    (what its embedding reads after its own text), if any."""
    turn_index: int
    digest: str
    skip: bool
    """Already stored complete with this content and a vector that holds the turn before it."""


def check_unique(turns: Sequence[TurnInput]) -> None:
    """Every turn has its text fields and a turn_id of its own (else InputError, naming it)."""
    seen: dict[str, TurnInput] = {}
    for turn in turns:
        if turn.turn_id in seen:
            raise InputError(
                f"duplicate turn_id {turn.turn_id!r}",
                source=turn.source,
                line=turn.line,
                field="turn_id",
            )
        seen[turn.turn_id] = turn
        for name in ("session", "turn_id", "speaker", "text"):
            value = getattr(turn, name)
            if not isinstance(value, str) or not value.strip():
                raise InputError(
                    "must be a non-empty string", source=turn.source, line=turn.line, field=name
                )


def stored_turns(store: GraphStore, space: str, ids: Sequence[str]) -> dict[str, Mapping[str, Any]]:
    existing: dict[str, Mapping[str, Any]] = {}
    for start in range(0, len(ids), 1000):
        for row in store.read(
            "conversation/existing_turns", {"space": space, "ids": list(ids[start : start + 1000])}
        ):
            existing[str(row["id"])] = row
    return existing


def plan_turns(
    store: GraphStore,
    turns: Sequence[TurnInput],
    space: str,
    existing: Mapping[str, Mapping[str, Any]],
    clock: int,
) -> list[TurnPlan]:
    """Sequence numbers, NEXT links and the logical clock for each turn, and whether it
    is already stored complete with this content and its vector holds the turn before it
    (then it is skipped)."""
    sessions = list(dict.fromkeys(t.session for t in turns))
    tails: dict[str, tuple[str, int, tuple[str, str]]] = {}
    for start in range(0, len(sessions), 500):
        for row in store.read(
            "conversation/session_tails",
            {"space": space, "sessions": sessions[start : start + 500]},
        ):
            if row["last_id"] is not None:
                last = (str(row["last_speaker"]), str(row["last_text"]))
                tails[str(row["session"])] = (str(row["last_id"]), int(row["last_seq"]), last)
    last_in_session: dict[str, TurnInput] = {}
    max_seq: dict[str, int] = {s: tails[s][1] for s in tails}
    plans = []
    for turn in turns:
        stored = existing.get(turn.turn_id)
        digest = content_hash(
            turn.session,
            turn.speaker,
            turn.text,
            str(turn.timestamp),
            json.dumps(turn.metadata, sort_keys=True, default=str),
        )
        if stored is not None and stored.get("seq") is not None:
            seq = int(stored["seq"])
            turn_index = int(stored.get("created_turn") or 0)
        else:
            seq = max_seq.get(turn.session, -1) + 1
            turn_index = clock
            clock += 1
        max_seq[turn.session] = max(max_seq.get(turn.session, -1), seq)
        before = last_in_session.get(turn.session)
        prev = before.turn_id if before is not None else None
        previous = (before.speaker, before.text) if before is not None else None
        if prev is None and stored is None and turn.session in tails:
            tail_id, _, tail = tails[turn.session]
            if tail_id != turn.turn_id:
                prev, previous = tail_id, tail
        last_in_session[turn.session] = turn
        skip = (
            stored is not None
            and bool(stored.get("complete"))
            and stored.get("content_hash") == digest
            and bool(stored.get("context_embedded"))
        )
        plans.append(TurnPlan(turn, seq, prev, previous, turn_index, digest, skip))
    return plans
