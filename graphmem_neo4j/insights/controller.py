"""The LLM graph controller of §3.4: the prompt of Appendix A, its exact JSON schema, and the
checks an answer must pass before any edit is applied (ids must be the retrieved ones, one
decision each; a revision or an addition must carry its text)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ..errors import LLMError
from ..llm import LLMClient
from .models import (
    AddDecision,
    ControllerInput,
    ControllerPlan,
    EditDecision,
    Operation,
    Step,
)

MAX_ATTEMPTS = 3
MAX_TRAJECTORY_CHARS = 8_000

# Appendix A, verbatim up to the placeholders, which are filled in the user message.
SYSTEM_PROMPT = """You are a graph memory controller. Update retrieved insight nodes after a task.
For each retrieved insight, choose exactly one operation:
KEEP: Choose this if the insight was valid and directly useful for the current task. The current \
query will be added to positive evidence.
ARCHIVE: Choose this if the insight was invalid, harmful, misleading, or contradicted by the \
current task. The current query will be added to negative evidence and the node will be \
deactivated.
REVISE: Choose this if the insight was partially useful but too broad, outdated, or missing \
necessary conditions. The old node will be archived, and a new revised active node will be \
created. The revised insight must correct or narrow the original insight, not merely paraphrase \
it.
ADD: After editing existing insights, decide whether the current task contains a new reusable \
insight not covered by retrieved insights. Add only generalizable and non-duplicated insights.
Use only the given task information. Be conservative. Do not create task-specific memories."""

USER_TEMPLATE = """Current query:
{query}
Trajectory:
{trajectory}
Final answer:
{answer}
Task feedback:
{feedback}
Retrieved insights:
{insights}
Return only valid JSON in this format:
{{"insight_edits": [{{"insight_id": "...","operation": "KEEP|ARCHIVE|REVISE",\
"revised_insight_text": null}}],"add_new_insight": {{"decision": false,\
"new_insight_text": null}}}}"""


class InsightEditAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    insight_id: str
    operation: Literal["KEEP", "ARCHIVE", "REVISE"]
    revised_insight_text: str | None


class AddAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    decision: bool
    new_insight_text: str | None


class ControllerAnswer(BaseModel):
    """The exact JSON object Appendix A asks for."""

    model_config = ConfigDict(extra="forbid", strict=True)

    insight_edits: list[InsightEditAnswer]
    add_new_insight: AddAnswer


def trajectory_text(steps: Sequence[Step], limit: int = MAX_TRAJECTORY_CHARS) -> str:
    lines = [f"{s.role}: {s.action} -> {s.observation}" for s in steps]
    text = "\n".join(lines) or "(no steps)"
    if len(text) > limit:
        text = "...\n" + text[-limit:]
    return text


def build_user_prompt(task: ControllerInput) -> str:
    insights = [
        {
            "insight_id": r.id,
            "text": r.text,
            "positive_evidence": r.positive_total,
            "negative_evidence": r.negative_total,
        }
        for r in task.retrieved
    ]
    feedback = f"Status: {'Resolved' if task.status == 'resolved' else 'Failed'}."
    if task.feedback:
        feedback += f" {task.feedback}"
    return USER_TEMPLATE.format(
        query=task.query,
        trajectory=trajectory_text(task.steps),
        answer=task.answer or "(none)",
        feedback=feedback,
        insights=json.dumps(insights, ensure_ascii=False),
    )


def problems(answer: ControllerAnswer, task: ControllerInput) -> list[str]:
    """Everything wrong with a schema-valid answer for this task; [] when it can be applied."""
    found: list[str] = []
    texts = {r.id: r.text for r in task.retrieved}
    seen: set[str] = set()
    for edit in answer.insight_edits:
        if edit.insight_id not in texts:
            found.append(f"insight_id {edit.insight_id!r} is not one of the retrieved insights")
            continue
        if edit.insight_id in seen:
            found.append(f"insight_id {edit.insight_id!r} has more than one operation")
        seen.add(edit.insight_id)
        if edit.operation == "REVISE":
            text = (edit.revised_insight_text or "").strip()
            if not text:
                found.append(f"REVISE of {edit.insight_id!r} needs revised_insight_text")
            elif " ".join(text.split()) == " ".join(texts[edit.insight_id].split()):
                found.append(f"REVISE of {edit.insight_id!r} repeats the original text")
        elif edit.revised_insight_text is not None:
            found.append(
                f"revised_insight_text of {edit.insight_id!r} must be null for {edit.operation}"
            )
    missing = [i for i in texts if i not in seen]
    if missing:
        found.append(f"no operation for insight_id {', '.join(repr(m) for m in missing)}")
    add = answer.add_new_insight
    if add.decision and not (add.new_insight_text or "").strip():
        found.append("add_new_insight.decision is true but new_insight_text is empty")
    if not add.decision and add.new_insight_text is not None:
        found.append("add_new_insight.new_insight_text must be null when decision is false")
    return found


def to_plan(answer: ControllerAnswer, task: ControllerInput, decided_by: str) -> ControllerPlan:
    """An answer that passed `problems` as a plan, in the order the insights were retrieved."""
    by_id = {e.insight_id: e for e in answer.insight_edits}
    why = f"LLM controller judged the {task.status} task"
    edits = tuple(
        EditDecision(
            r.id,
            by_id[r.id].operation,
            revised_text=by_id[r.id].revised_insight_text,
            reason=f"{why}: {by_id[r.id].operation}",
        )
        for r in task.retrieved
    )
    add = answer.add_new_insight
    return ControllerPlan(
        edits,
        AddDecision(
            add.decision,
            add.new_insight_text if add.decision else None,
            reason=f"{why}: {'a new reusable insight' if add.decision else 'nothing new to add'}",
        ),
        decided_by=decided_by,
    )


def answer_schema(task: ControllerInput) -> dict[str, Any]:
    """ControllerAnswer's JSON schema narrowed to this task: `insight_id` one of the retrieved
    ids, one edit per retrieved insight. Sent as the structured-output schema, so an endpoint
    that enforces it (a grammar on llama.cpp, strict mode on OpenAI) cannot invent an id;
    `problems` still checks every answer."""
    schema = ControllerAnswer.model_json_schema()
    edits = schema["properties"]["insight_edits"]
    edits["minItems"] = edits["maxItems"] = len(task.retrieved)
    if task.retrieved:
        schema["$defs"]["InsightEditAnswer"]["properties"]["insight_id"]["enum"] = [
            r.id for r in task.retrieved
        ]
    return schema


def llm_plan(
    llm: LLMClient, task: ControllerInput, *, attempts: int = MAX_ATTEMPTS
) -> ControllerPlan:
    """Ask the LLM; an answer naming unknown ids, skipping one, or missing a text is sent back
    with what was wrong, at most `attempts` times in all. LLMError when none is usable."""
    user = build_user_prompt(task)
    narrowed = answer_schema(task)
    last: list[str] = []
    for _ in range(attempts):
        prompt = user
        if last:
            prompt += (
                "\n\nYour previous answer was rejected: "
                + "; ".join(last)
                + ". Give exactly one operation for each retrieved insight_id and nothing else."
            )
        answer = llm.complete_json(
            system=SYSTEM_PROMPT, user=prompt, schema=ControllerAnswer, json_schema=narrowed
        )
        last = problems(answer, task)
        if not last:
            return to_plan(answer, task, decided_by=f"controller:llm:{llm.model}")
    raise LLMError(
        f"LLM {llm.model} gave no usable controller answer in {attempts} attempts: "
        + "; ".join(last)
    )


_FALLBACK: dict[str, Operation] = {"REVISE": "ARCHIVE", "ARCHIVE": "NONE", "PENALIZE": "NONE"}


def restrict(plan: ControllerPlan, allowed: frozenset[str]) -> ControllerPlan:
    """An ablated controller (§4.3): a forbidden REVISE becomes ARCHIVE if that is allowed,
    anything else forbidden becomes NONE (no edit). KEEP and NOT_APPLICABLE (no evidence) are
    always allowed."""
    edits = []
    for edit in plan.edits:
        operation: Operation = edit.operation
        while operation not in ("KEEP", "NOT_APPLICABLE", "NONE") and operation not in allowed:
            operation = _FALLBACK[operation]
        if operation == edit.operation:
            edits.append(edit)
        else:
            edits.append(
                EditDecision(
                    edit.insight_id,
                    operation,
                    reason=f"{edit.reason} (this controller may not {edit.operation})",
                )
            )
    return ControllerPlan(tuple(edits), plan.add, plan.decided_by)
