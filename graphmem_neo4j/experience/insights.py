"""Intra-task insights (Task nodes) and cross-task insights (Task–Task edges), §4.2.1–4.2.2.

Offline: deterministic templates read off the edit path and the common subgraph. With an LLM:
the same structures go into a prompt and the model summarises them, as the paper does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints

from ..llm import LLMClient
from .models import CommonEdge, CrossTaskInsight, DecisionGraph, GraphDiff, TaskInsights, Trajectory
from .normalize import is_uninformative, normalize_action

MAX_INSIGHTS = 8
MAX_CORRECTIONS_PER_PAIR = 6
WORKFLOW_SHOWN = 14
ROLE_LEGEND = "<1>, <2>, … stand for the things each task names, in order"


@dataclass(frozen=True)
class ComparedPair:
    """An exploration trajectory matched against the expert it is closest to."""

    exploration: Trajectory
    exploration_graph: DecisionGraph
    expert: Trajectory
    diff: GraphDiff


def short(text: str | None, limit: int = 70) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def workflow_of(trajectory: Trajectory) -> tuple[str, ...]:
    """The actions that changed something, in order: what a successful run did."""
    return tuple(s.action for s in trajectory.steps if not is_uninformative(s.observation))


def render_workflow(actions: Sequence[str], limit: int = WORKFLOW_SHOWN) -> str:
    """a → b → c, with runs of "go to" joined ("go to shelf 1, shelf 2") and a long tail cut."""
    parts: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            parts.append("go to " + ", ".join(run))
            run.clear()

    for action in actions:
        key = normalize_action(action)
        if key.type == "go" and key.receptacle:
            run.append(" ".join(action.split()[2:]))
            continue
        flush()
        parts.append(action)
    flush()
    if len(parts) > limit:
        return " → ".join(parts[:limit]) + f" → … (+{len(parts) - limit} more)"
    return " → ".join(parts)


def _invalid_only(graph: DecisionGraph, action: str) -> bool:
    node = next((n.label for n in graph.nodes if n.raw == action), None)
    incoming = [e for e in graph.edges if e.target == node]
    return bool(incoming) and not any(e.valid for e in incoming)


def pair_insights(pair: ComparedPair) -> list[str]:
    """Corrections from one edit path: replace, add, avoid; then the workflow to keep."""
    replace, add, avoid = [], [], []
    for op in pair.diff.edit_path:
        when = f'after "{short(op.observation)}"' if op.observation else "at the start"
        if op.op == "relabel_node":
            replace.append(f'{when.capitalize()}, do "{op.new_action}" instead of "{op.action}".')
        elif op.op == "insert_node":
            add.append(f'Do not skip "{op.new_action or op.action}" ({when}).')
        elif op.op == "delete_node" and op.action is not None:
            if _invalid_only(pair.exploration_graph, op.action):
                avoid.append(f'"{op.action}" does nothing here ({when}); do not try it.')
            else:
                avoid.append(f'Avoid "{op.action}" ({when}): the successful run did without it.')
    found = (replace + add + avoid)[:MAX_CORRECTIONS_PER_PAIR]
    keep = [e.target for e in pair.diff.common_edges]
    if keep:
        verdict = "succeeded" if pair.exploration.reward >= 1.0 else "failed"
        found.append(f"Keep what the attempt that {verdict} got right: {render_workflow(keep)}.")
    return found


def template_task_insights(
    expert: Trajectory | None,
    pairs: Sequence[ComparedPair],
    explorations: Sequence[Trajectory] = (),
) -> TaskInsights:
    """Corrections from every compared attempt, then what worked: the expert's workflow, or a
    successful attempt's when no expert run is stored."""
    found: list[str] = []
    for pair in pairs:
        for line in pair_insights(pair):
            if line not in found:
                found.append(line)
    found = found[: MAX_INSIGHTS - 1]
    workflow = workflow_of(expert) if expert is not None else ()
    best = max(explorations, key=lambda t: t.reward, default=None)
    if not workflow and best is not None and best.reward >= 1.0:
        workflow = workflow_of(best)
    if workflow:
        found.append(f"What worked ({len(workflow)} steps): {render_workflow(workflow)}.")
    elif best is not None:
        found.append(f"No successful run stored yet; the best attempt scored {best.reward:g}.")
    return TaskInsights(tuple(found), workflow, "template")


def template_cross_insight(
    task_a: str, task_b: str, common: Sequence[CommonEdge]
) -> CrossTaskInsight:
    workflow = tuple(e.target for e in common)
    text = (
        f'"{short(task_a, 60)}" and "{short(task_b, 60)}" share this workflow: '
        f"{render_workflow(workflow)}."
    )
    return CrossTaskInsight(text, workflow, len(common), "template")


# --- LLM path ----------------------------------------------------------------------------

SYSTEM = (
    "You turn a structured comparison of an AI agent's attempt with an expert's successful "
    "run into short, reusable advice for future attempts at similar tasks. Each piece of advice "
    "names the observation it applies to and the action to take or avoid. Answer with JSON only."
)


# Not blank once stripped: a model may answer " " or "", which would store an empty insight.
_Advice = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]


class InsightDraft(BaseModel):
    insights: list[_Advice] = Field(min_length=1, max_length=MAX_INSIGHTS)
    """Each a single imperative sentence."""


class EdgeDraft(BaseModel):
    insight: _Advice


def _ops_text(pair: ComparedPair) -> str:
    lines = []
    for op in pair.diff.edit_path:
        if op.op.endswith("_node"):
            target = f" -> {op.new_action}" if op.new_action else ""
            lines.append(f"- {op.op}: {op.action}{target} (after: {short(op.observation, 120)})")
    return "\n".join(lines) or "- none"


def llm_task_insights(
    llm: LLMClient, task: str, expert: Trajectory | None, pairs: Sequence[ComparedPair]
) -> TaskInsights:
    workflow = workflow_of(expert) if expert is not None else ()
    blocks = []
    for pair in pairs:
        keep = render_workflow([e.target for e in pair.diff.common_edges]) or "nothing"
        blocks.append(
            f"Attempt {pair.exploration.id} (reward {pair.exploration.reward}):\n"
            f"Edit path turning the attempt into the expert run:\n{_ops_text(pair)}\n"
            f"Common subgraph (correct workflow to keep): {keep}"
        )
    user = (
        f"Task: {task}\n"
        f"Expert workflow: {render_workflow(workflow) or 'unknown'}\n\n"
        + ("\n\n".join(blocks) or "No attempts yet: summarise the expert workflow.")
        + '\n\nReply as {"insights": ["…", …]} with at most '
        + f"{MAX_INSIGHTS} insights: corrections (replace X by Y after observation O, add, "
        "avoid) and the workflow to keep."
    )
    draft = llm.complete_json(system=SYSTEM, user=user, schema=InsightDraft)
    return TaskInsights(tuple(s.strip() for s in draft.insights if s.strip()), workflow, "llm")


def llm_cross_insight(
    llm: LLMClient, task_a: str, task_b: str, common: Sequence[CommonEdge]
) -> CrossTaskInsight:
    workflow = tuple(e.target for e in common)
    user = (
        f"Two similar tasks were solved by experts in different environments.\n"
        f"Task A: {task_a}\nTask B: {task_b}\n"
        f"Actions both expert runs took under the same kind of observation ({ROLE_LEGEND}):\n"
        + "\n".join(f"- after '{short(e.observation, 100)}': {e.target}" for e in common)
        + '\n\nReply as {"insight": "…"}: one or two sentences of reusable workflow advice.'
    )
    draft = llm.complete_json(system=SYSTEM, user=user, schema=EdgeDraft)
    return CrossTaskInsight(draft.insight.strip(), workflow, len(common), "llm")
