"""One transcript updates every layer (`graphmem chat-log FILE`, `GraphMemory.add_chat_log`).

A chat log is JSONL; each line is one of

    a turn     {"speaker"|"role": str, "text"|"content": str, "timestamp"?: ISO-8601,
                "turn_id"?: str, "session"?: str, ...other keys kept as turn metadata}
    a step     {"action": str, "observation": str}            (an agent's tool call)
    an outcome {"outcome": "resolved"|"failed", "task_id"?: str, "query"?: str,
                "reward"?: 0..1, "answer"?: str, "feedback"?: str}   (at most one)

and it becomes
    conversation  every turn (turn ids default to `<session>#<n>`, n = the turn's position)
    facts         statements read from the people's turns: the LLM when one is configured,
                  else the offline patterns after rewriting first person ("I moved to Lisbon",
                  said by Maya → "Maya moved to Lisbon"); each fact's source is its turn
    insights      with an outcome: a task record (the query defaults to the first turn; the
                  steps are the agent steps, or else the replies), judged by the controller
    experience    with an outcome and agent steps: a trajectory of the task (resolved →
                  expert run, failed → exploration run)

Everything is read and checked before anything is written; each layer's write is
idempotent, so running the same log twice stores it once.

The helpers at the end turn plain dicts (from the Python API or the MCP server) into the
layers' typed inputs with the same checks.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .conversation.models import IngestReport as TurnReport
from .conversation.models import TurnInput
from .conversation.readers import parse_turn_row
from .errors import InputError, LLMError
from .experience.models import AddReport, Kind, Trajectory
from .experience.parsing import from_jsonl
from .facts.models import FactInput
from .facts.models import IngestReport as FactReport
from .facts.patterns import RELATION_CATEGORIES, VERBS, parse_statements
from .insights.models import RecordedTask, TaskRecord
from .insights.parsing import task_from_dict
from .tokens import LLMUsage

if TYPE_CHECKING:
    from .memory import GraphMemory

Outcome = Literal["resolved", "failed"]
NO_FACTS_FROM = frozenset({"assistant", "system", "tool", "agent", "bot"})
"""Speakers whose turns are not read for facts (what an assistant says is not evidence)."""
_TASK_ID = re.compile(r"[^A-Za-z0-9_.:/#@+=\-]+")
MAX_ID = 200


# --- the file --------------------------------------------------------------------------------
@dataclass(frozen=True)
class ChatStep:
    action: str
    observation: str
    line: int | None = None


@dataclass(frozen=True)
class ChatOutcome:
    outcome: Outcome
    task_id: str | None = None
    query: str | None = None
    reward: float | None = None
    answer: str | None = None
    feedback: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class ChatLog:
    source: str
    session: str
    turns: tuple[TurnInput, ...]
    steps: tuple[ChatStep, ...] = ()
    outcome: ChatOutcome | None = None


_TURN_KEYS = ("text", "content")
_OUTCOME_KEYS = frozenset({"outcome", "task_id", "query", "reward", "answer", "feedback"})


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _alias(row: dict[str, Any], names: tuple[str, str], *, source: str, line: int) -> Any:
    """The value under one of two synonymous keys (giving both is an error)."""
    present = [n for n in names if n in row]
    if len(present) > 1:
        raise InputError(
            f"give either '{names[0]}' or '{names[1]}', not both",
            source=source,
            line=line,
            field=names[1],
        )
    if not present:
        raise InputError(
            f"missing (a turn needs '{names[0]}' or '{names[1]}')",
            source=source,
            line=line,
            field=names[0],
        )
    return row[present[0]]


def session_name(value: Any, *, source: str, line: int | None = None) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError("must be a non-empty string", source=source, line=line, field="session")
    if len(value) > MAX_ID:
        raise InputError(
            f"longer than {MAX_ID} characters", source=source, line=line, field="session"
        )
    return value.strip()


def parse_turn(
    row: Mapping[str, Any], *, session: str, default_id: str, source: str, line: int
) -> TurnInput:
    """A turn line (or API dict): `role`/`content` are accepted for `speaker`/`text`; session
    and turn_id get defaults; then the conversation layer's own checks apply."""
    data = dict(row)
    speaker = _alias(data, ("speaker", "role"), source=source, line=line)
    text = _alias(data, ("text", "content"), source=source, line=line)
    for key in ("speaker", "role", "text", "content"):
        data.pop(key, None)
    data["speaker"], data["text"] = speaker, text
    data.setdefault("session", session)
    data.setdefault("turn_id", default_id)
    return parse_turn_row(data, source=source, line=line)


def _step(row: dict[str, Any], *, source: str, line: int) -> ChatStep:
    extra = sorted(set(row) - {"action", "observation"})
    if extra:
        raise InputError(
            "a step line has only 'action' and 'observation'",
            source=source,
            line=line,
            field=extra[0],
        )
    values = []
    for name in ("action", "observation"):
        if name not in row:
            raise InputError("missing", source=source, line=line, field=name)
        value = row[name]
        if not isinstance(value, str):
            raise InputError(
                f"expected a string, got {_kind(value)}", source=source, line=line, field=name
            )
        if name == "action" and not value.strip():
            raise InputError("must not be empty", source=source, line=line, field=name)
        values.append(value.strip())
    return ChatStep(values[0], values[1], line)


def _outcome(row: dict[str, Any], *, source: str, line: int) -> ChatOutcome:
    extra = sorted(set(row) - _OUTCOME_KEYS)
    if extra:
        raise InputError(
            f"unknown field (an outcome line has {', '.join(sorted(_OUTCOME_KEYS))})",
            source=source,
            line=line,
            field=extra[0],
        )
    outcome = row["outcome"]
    if outcome not in ("resolved", "failed"):
        raise InputError(
            f"expected 'resolved' or 'failed', got {outcome!r}",
            source=source,
            line=line,
            field="outcome",
        )
    texts: dict[str, str | None] = {}
    for name in ("task_id", "query", "answer", "feedback"):
        value = row.get(name)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise InputError(
                f"expected a non-empty string, got {_kind(value)}",
                source=source,
                line=line,
                field=name,
            )
        texts[name] = value
    return ChatOutcome(
        outcome=outcome,
        task_id=texts["task_id"],
        query=texts["query"],
        reward=check_reward(row.get("reward"), source=source, line=line),
        answer=texts["answer"],
        feedback=texts["feedback"],
        line=line,
    )


def check_reward(value: Any, *, source: str | None = None, line: int | None = None) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise InputError(
            f"expected a number between 0 and 1, got {value!r}",
            source=source,
            line=line,
            field="reward",
        )
    return float(value)


def parse_chat_log(lines: Iterable[str], *, source: str, session: str) -> ChatLog:
    """Every line checked; the first problem is an InputError naming source, line and field."""
    session = session_name(session, source=source)
    turns: list[TurnInput] = []
    steps: list[ChatStep] = []
    outcome: ChatOutcome | None = None
    seen: dict[str, int] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except json.JSONDecodeError as e:
            raise InputError(f"malformed JSON: {e.msg}", source=source, line=number) from e
        if not isinstance(row, dict):
            raise InputError(
                f"expected a JSON object, got {_kind(row)}", source=source, line=number
            )
        kinds = [
            kind
            for kind, present in (
                ("turn", any(k in row for k in _TURN_KEYS)),
                ("step", "action" in row),
                ("outcome", "outcome" in row),
            )
            if present
        ]
        if len(kinds) != 1:
            raise InputError(
                "a line is a turn (speaker, text), a step (action, observation) or an outcome"
                + (f"; this one looks like {' and '.join(kinds)}" if kinds else ""),
                source=source,
                line=number,
            )
        if kinds[0] == "step":
            steps.append(_step(row, source=source, line=number))
        elif kinds[0] == "outcome":
            if outcome is not None:
                raise InputError(
                    f"a second outcome line (the first is line {outcome.line})",
                    source=source,
                    line=number,
                    field="outcome",
                )
            outcome = _outcome(row, source=source, line=number)
        else:
            turn = parse_turn(
                row,
                session=session,
                default_id=f"{session}#{len(turns) + 1}",
                source=source,
                line=number,
            )
            if turn.turn_id in seen:
                raise InputError(
                    f"duplicate turn_id {turn.turn_id!r} (first on line {seen[turn.turn_id]})",
                    source=source,
                    line=number,
                    field="turn_id",
                )
            seen[turn.turn_id] = number
            turns.append(turn)
    if not turns:
        raise InputError("no turns in the chat log", source=source)
    return ChatLog(source, session, tuple(turns), tuple(steps), outcome)


def read_chat_log(path: Path, *, session: str | None = None) -> ChatLog:
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", source=source) from e
    except UnicodeDecodeError as e:
        raise InputError(f"not valid UTF-8: {e.reason}", source=source) from e
    return parse_chat_log(text.splitlines(), source=source, session=session or path.stem)


# --- offline facts ---------------------------------------------------------------------------
_IRREGULAR = {"have": "has", "do": "does", "go": "goes"}
_I_VERB = re.compile(r"\bI\s+([a-z]+)\b")
_I_AM = re.compile(r"\bI(?:'m|’m|\s+am)\b")
_MY = re.compile(r"\b[Mm]y\s+(\w+)")
# Clause boundaries the statement patterns should see as sentence ends: "I moved to Lisbon
# and I work at Acme", "Big news: I moved", "I drink tea, so ...".
_CLAUSE = re.compile(r",?\s+and\s+(?=I\b)|:\s+|,\s+(?:so|but|because|which|although)\s+")
_NOW = re.compile(r"\s+(?:now|these days|nowadays)(?=\s*(?:[.!?;]|$))")
_PATTERN_VERBS = frozenset(phrase.split()[0] for phrase in VERBS)
"""First words of the verb phrases the statement patterns read ("lives", "moved", ...)."""


def _third_person_verb(verb: str) -> str:
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(verb) > 1 and verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _speaker_verb(speaker: str, verb: str) -> str:
    """ "I <verb>" as the speaker, when it forms a verb the patterns read ("I live" → "Maya
    lives", "I moved" → "Maya moved"); any other first-person clause is left alone, so a
    pattern never reads a mangled verb ("I saw" must not become "Maya saws")."""
    if verb in _PATTERN_VERBS:
        return f"{speaker} {verb}"
    third = _third_person_verb(verb)
    if third in _PATTERN_VERBS:
        return f"{speaker} {third}"
    return f"I {verb}"


def third_person(text: str, speaker: str) -> str:
    """First person → the speaker where the statement patterns can then read it:
    "I moved to Lisbon" → "Maya moved to Lisbon", "I work at Acme" → "Maya works at Acme",
    "I'm a nurse" → "Maya is a nurse", "my employer is Acme" → "Maya's employer is Acme"
    (only the relation words the patterns know: "my kids are excited" stays as it is)."""
    text = _I_AM.sub(f"{speaker} is", text)
    text = _I_VERB.sub(lambda m: _speaker_verb(speaker, m.group(1)), text)
    return _MY.sub(
        lambda m: f"{speaker}'s {m.group(1)}" if m.group(1) in RELATION_CATEGORIES else m.group(0),
        text,
    )


def statements_of(text: str, speaker: str) -> str:
    """A turn as the statement patterns read it: clauses split into sentences, first person
    as the speaker, a trailing "now" dropped."""
    return third_person(_NOW.sub("", _CLAUSE.sub(". ", text)), speaker)


def _iso_day(ms: int | None) -> str | None:
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=UTC).date().isoformat()


def offline_facts(turns: Sequence[TurnInput]) -> list[FactInput]:
    """What the participants say about themselves, read by the statement patterns: a fact
    whose subject is a speaker and whose verb or relation word the patterns know (their
    catch-all "X <verb>s Y" reading, category "general", is too loose for chat). Each names
    its turn as the source and holds from the statement's own time, else the turn's day."""
    found: dict[tuple[str, ...], FactInput] = {}
    speakers = {t.speaker.strip().casefold() for t in turns}
    for turn in turns:
        if turn.speaker.strip().casefold() in NO_FACTS_FROM:
            continue
        for st in parse_statements(statements_of(turn.text, turn.speaker)):
            if st.category == "general" or st.subject.strip().casefold() not in speakers:
                continue
            data: dict[str, Any] = {
                "subject": st.subject,
                "relation": st.relation,
                "object": st.object,
                "category": st.category,
                "source": f"turn {turn.turn_id}",
            }
            if st.context:
                data["context"] = st.context
            valid_from = st.valid_from or _iso_day(turn.timestamp)
            if valid_from:
                data["valid_from"] = valid_from
            try:
                fact = FactInput.model_validate(data)
            except ValueError:
                continue  # a phrase the patterns took for a name but the checks refuse
            found.setdefault(tuple(str(v) for v in data.values()), fact)
    return list(found.values())


def transcript(turns: Sequence[TurnInput]) -> str:
    return "\n".join(f"{t.speaker}: {t.text}" for t in turns)


# --- the task --------------------------------------------------------------------------------
def task_id_for(session: str) -> str:
    """A task id from a session name (task ids allow a plain alphabet only)."""
    cleaned = _TASK_ID.sub("-", session).strip("-") or "session"
    if not cleaned[0].isalnum():
        cleaned = "s" + cleaned
    return f"chat:{cleaned}"[:256]


def dialogue_steps(turns: Sequence[TurnInput]) -> list[dict[str, str]]:
    """Without agent steps, a task's steps are the replies: each turn of someone other than
    the first speaker, with the next turn as what it was met with."""
    asker = turns[0].speaker
    steps = []
    for i, turn in enumerate(turns):
        if i == 0 or turn.speaker == asker:
            continue
        after = turns[i + 1].text if i + 1 < len(turns) else ""
        steps.append({"role": turn.speaker, "action": turn.text, "observation": after})
    return steps


@dataclass(frozen=True)
class ChatPlan:
    """Everything a chat log will write, built and checked before any write."""

    log: ChatLog
    facts: tuple[FactInput, ...]
    facts_by: str
    """'llm', 'offline' or 'offline (LLM failed: …)'."""
    task: TaskRecord | None
    trajectory: Trajectory | None


def plan_task(
    log: ChatLog, outcome: ChatOutcome | None
) -> tuple[TaskRecord | None, Trajectory | None]:
    if outcome is None:
        return None, None
    task_id = outcome.task_id or task_id_for(log.session)
    query = outcome.query or log.turns[0].text
    if log.steps:
        steps = [
            {"role": "agent", "action": s.action, "observation": s.observation} for s in log.steps
        ]
    else:
        steps = dialogue_steps(log.turns)
    record = {"id": task_id, "query": query, "status": outcome.outcome, "steps": steps}
    if outcome.answer is not None:
        record["answer"] = outcome.answer
    if outcome.feedback is not None:
        record["feedback"] = outcome.feedback
    task = task_from_dict(record, source=log.source, line=outcome.line)
    trajectory = None
    if log.steps:
        kind: Kind = "expert" if outcome.outcome == "resolved" else "exploration"
        reward = outcome.reward
        if reward is None:
            reward = 1.0 if outcome.outcome == "resolved" else 0.0
        trajectory = from_jsonl(
            {
                "id": task_id,
                "task": query,
                "reward": reward,
                "steps": [{"action": s.action, "observation": s.observation} for s in log.steps],
                "metadata": {"session": log.session},
            },
            kind=kind,
            source=log.source,
            line=outcome.line,
        )
    return task, trajectory


def merge_outcome(base: ChatOutcome | None, overrides: Mapping[str, Any]) -> ChatOutcome | None:
    """The file's outcome line with command-line values on top (None values are not given)."""
    given = {k: v for k, v in overrides.items() if v is not None}
    if base is None and not given:
        return None
    if base is None and "outcome" not in given:
        raise InputError(
            "--task-id, --query, --reward, --answer and --feedback need an outcome "
            "(--outcome resolved|failed, or an outcome line in the log)",
            field="outcome",
        )
    data: dict[str, Any] = {}
    if base is not None:
        data = {
            "outcome": base.outcome,
            "task_id": base.task_id,
            "query": base.query,
            "reward": base.reward,
            "answer": base.answer,
            "feedback": base.feedback,
        }
    data.update(given)
    clean = {k: v for k, v in data.items() if v is not None}
    line = base.line if base is not None and base.line is not None else 0
    return _outcome(clean, source="options", line=line)


@dataclass(frozen=True)
class ChatLogReport:
    space: str
    session: str
    turns: TurnReport
    facts: FactReport | None
    facts_by: str
    task: RecordedTask | None
    trajectory: AddReport | None
    llm: LLMUsage = field(default_factory=LLMUsage)
    """LLM tokens this ingestion spent (extraction, controller, insights)."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "space": self.space,
            "session": self.session,
            "turns": self.turns.as_dict(),
            "facts": None if self.facts is None else self.facts.as_dict(),
            "facts_by": self.facts_by,
            "task": None if self.task is None else self.task.as_dict(),
            "trajectory": None if self.trajectory is None else self.trajectory.as_dict(),
            "llm": self.llm.as_dict(),
        }


def prepare(memory: GraphMemory, log: ChatLog, outcome: ChatOutcome | None) -> ChatPlan:
    """Extract the facts (the only step that may call the LLM) and build the task: no write."""
    task, trajectory = plan_task(log, outcome)
    facts: list[FactInput] = []
    facts_by = "offline"
    llm = memory.llm
    people = [t for t in log.turns if t.speaker.strip().casefold() not in NO_FACTS_FROM]
    if llm is not None and people:
        from .facts.llm_extract import extract_with_llm

        try:
            facts, _ = extract_with_llm(llm, transcript(people), source=f"chat {log.session}")
            facts_by = "llm"
        except LLMError as e:
            if memory.settings.llm_fallback != "offline":
                raise
            facts_by = f"offline (LLM failed: {str(e)[:200]})"
    if facts_by != "llm":
        facts = offline_facts(log.turns)
    return ChatPlan(log, tuple(facts), facts_by, task, trajectory)


def ingest(memory: GraphMemory, plan: ChatPlan, *, space: str, learn: bool = True) -> ChatLogReport:
    """Write a prepared plan: turns, facts, task (judged now with `learn`), trajectory."""
    log = plan.log
    turns = memory.conversation.add_turns(log.turns, space=space)
    facts = (
        memory.facts.add_facts(plan.facts, space=space, source_name=log.source)
        if plan.facts
        else None
    )
    task = None
    if plan.task is not None:
        task = memory.insights.record_task(
            plan.task, space=space, learn=learn, requested_by="chat-log"
        )
    trajectory = memory.experience.add([plan.trajectory], space=space) if plan.trajectory else None
    return ChatLogReport(space, log.session, turns, facts, plan.facts_by, task, trajectory)


# --- plain dicts from the API and the MCP server ------------------------------------------------
def turns_from(
    items: Iterable[TurnInput | Mapping[str, Any]],
    *,
    session: str = "default",
    source: str = "input",
) -> list[TurnInput]:
    """TurnInputs from TurnInputs or dicts. A dict without `turn_id` gets one derived from its
    session, speaker, text and timestamp (so sending it again stores it once)."""
    out: list[TurnInput] = []
    used: dict[str, int] = {}
    for number, item in enumerate(items, start=1):
        if isinstance(item, TurnInput):
            out.append(item)
            continue
        if not isinstance(item, Mapping):
            raise InputError(
                f"expected a turn object, got {_kind(item)}", source=source, line=number
            )
        own_session = item.get("session", session)
        digest = hashlib.sha256(
            json.dumps(
                [
                    own_session,
                    item.get("speaker", item.get("role")),
                    item.get("text", item.get("content")),
                    item.get("timestamp"),
                ],
                default=str,
            ).encode()
        ).hexdigest()[:16]
        base = f"{own_session}:{digest}"
        used[base] = used.get(base, 0) + 1
        default_id = base if used[base] == 1 else f"{base}-{used[base]}"
        out.append(
            parse_turn(item, session=session, default_id=default_id, source=source, line=number)
        )
    if not out:
        raise InputError("no turns given", source=source)
    return out


def task_from(item: TaskRecord | Mapping[str, Any], *, source: str = "input") -> TaskRecord:
    if isinstance(item, TaskRecord):
        return item
    if not isinstance(item, Mapping):
        raise InputError(f"expected a task object, got {_kind(item)}", source=source)
    data = dict(item)
    data.setdefault("steps", [])
    return task_from_dict(data, source=source)


def trajectory_from(
    item: Trajectory | Mapping[str, Any], *, kind: Kind | None = None, source: str = "input"
) -> Trajectory:
    if isinstance(item, Trajectory):
        return item
    if not isinstance(item, Mapping):
        raise InputError(f"expected a trajectory object, got {_kind(item)}", source=source)
    data = dict(item)
    chosen = kind or data.pop("kind", None)
    data.pop("kind", None)
    if chosen not in ("expert", "exploration"):
        raise InputError(
            f"expected 'expert' or 'exploration', got {chosen!r}", source=source, field="kind"
        )
    return from_jsonl(data, kind=chosen, source=source)
