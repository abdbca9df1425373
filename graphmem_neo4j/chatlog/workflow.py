"""A chat log through every layer: plan (the only step that may call the LLM; nothing is
written), then ingest the plan layer by layer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..conversation.models import IngestReport as TurnReport
from ..deps import Layers, Parts
from ..errors import LLMError
from ..experience.models import AddReport, Kind, Trajectory
from ..experience.parsing import from_jsonl
from ..facts.models import FactInput
from ..facts.models import IngestReport as FactReport
from ..insights.models import RecordedTask, TaskRecord
from ..insights.parsing import task_from_dict
from ..tokens import LLMUsage
from .heuristics import NO_FACTS_FROM, dialogue_steps, offline_facts, task_id_for, transcript
from .parsing import ChatLog, ChatOutcome


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
    if outcome.task_type is not None:
        record["task_type"] = outcome.task_type
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


def prepare(parts: Parts, log: ChatLog, outcome: ChatOutcome | None, *, space: str) -> ChatPlan:
    """Extract the facts (the only step that may call the LLM, its tokens booked to `space`)
    and build the task: no write."""
    task, trajectory = plan_task(log, outcome)
    facts: list[FactInput] = []
    facts_by = "offline"
    llm = parts.llm_for(space)
    people = [t for t in log.turns if t.speaker.strip().casefold() not in NO_FACTS_FROM]
    if llm is not None and people:
        from ..facts.llm_extract import extract_with_llm

        try:
            facts, _ = extract_with_llm(llm, transcript(people), source=f"chat {log.session}")
            facts_by = "llm"
        except LLMError as e:
            if parts.defaults.llm_fallback != "offline":
                raise
            facts_by = f"offline (LLM failed: {str(e)[:200]})"
    if facts_by != "llm":
        facts = offline_facts(log.turns)
    return ChatPlan(log, tuple(facts), facts_by, task, trajectory)


def ingest(layers: Layers, plan: ChatPlan, *, space: str, learn: bool = True) -> ChatLogReport:
    """Write a prepared plan: turns, facts, task (judged now with `learn`), trajectory."""
    log = plan.log
    turns = layers.conversation.add_turns(log.turns, space=space)
    facts = (
        layers.facts.add_facts(plan.facts, space=space, source_name=log.source)
        if plan.facts
        else None
    )
    task = None
    if plan.task is not None:
        task = layers.insights.record_task(
            plan.task, space=space, learn=learn, requested_by="chat-log"
        )
    trajectory = layers.experience.add([plan.trajectory], space=space) if plan.trajectory else None
    return ChatLogReport(space, log.session, turns, facts, plan.facts_by, task, trajectory)
