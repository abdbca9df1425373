"""The offline graph controller applied to the graph (§3.4), its audit trail, and its
behaviour when a run is cut short."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from graphmem_neo4j.errors import NotFound
from graphmem_neo4j.insights.models import (
    VARIANTS,
    AddDecision,
    ControllerPlan,
    EditDecision,
    RetrievalParams,
)
from graphmem_neo4j.memory import GraphMemory
from graphmem_neo4j.portability import dump_records

from .conftest import graph, task

HEAT = "Heat food in the microwave before serving it."
FAILED_HEATING = "heat some potato and put it in the fridge"
"""A failure of the kind of task the seeded insight was learnt on: the insight applied."""


def seed(
    memory: GraphMemory,
    space: str,
    text: str = HEAT,
    query: str = "heat some egg now",
    *more: str,
) -> str:
    """An insight supported by a task `seed` (and tasks `seed-1`... for `more` queries)."""
    tasks = [task("seed", query, actions=())]
    tasks += [task(f"seed-{n}", q, actions=()) for n, q in enumerate(more, start=1)]
    memory.insights.record_tasks(tasks, space=space)
    return memory.insights.add_insight(text, space=space, evidence=[t.id for t in tasks]).id


def test_keep_adds_positive_evidence_and_an_audit_record(memory: GraphMemory, space: str) -> None:
    insight = seed(memory, space)
    recorded = memory.insights.record_tasks(
        [task("t2", "heat some egg again", actions=())], space=space
    )
    assert [c.id for c in recorded.tasks[0].retrieved] == [insight]
    result = memory.insights.feedback("t2", space=space, requested_by="tester")
    assert [(e.insight_id, e.operation) for e in result.plan.edits] == [(insight, "KEEP")]
    assert not result.plan.add.decision  # no steps to learn from
    g = graph(memory, space)
    assert g.edges("POSITIVE") == {(insight, "seed"), (insight, "t2")}
    trail = memory.insights.history(insight, space=space)
    keep = [e for e in trail.edits if e.operation == "KEEP"]
    assert len(keep) == 1
    assert (keep[0].query_id, keep[0].actor, keep[0].requested_by) == (
        "t2",
        "controller:offline",
        "tester",
    )
    assert "resolved" in keep[0].reason and keep[0].at > 0
    assert [e.operation for e in trail.edits] == ["ADD", "KEEP"]


def test_repeated_failures_penalise_then_archive(memory: GraphMemory, space: str) -> None:
    insight = seed(memory, space, query="heat egg")  # every word reappears below: no narrowing
    for n in (1, 2):
        memory.insights.record_tasks(
            [task(f"f{n}", f"heat egg {'again ' * n}", status="failed", actions=())], space=space
        )
        memory.insights.feedback(f"f{n}", space=space)
    trail = memory.insights.history(insight, space=space)
    assert [e.operation for e in trail.edits] == ["ADD", "PENALIZE", "ARCHIVE"]
    assert [e.query_id for e in trail.edits] == [None, "f1", "f2"]
    assert not trail.insight.active and trail.insight.archived_at is not None
    assert (trail.insight.positive, trail.insight.negative) == (1, 2)
    # archived: kept for audit, never retrieved
    assert memory.insights.retrieve("heat egg", space=space).insights == ()
    everything = memory.insights.list_insights(space=space, include_archived=True)
    assert insight in {i.id for i in everything}
    assert insight not in {i.id for i in memory.insights.list_insights(space=space)}


def test_revise_replaces_an_overbroad_insight(memory: GraphMemory, space: str) -> None:
    old = seed(
        memory,
        space,
        HEAT,
        "heat some egg and put it on the table",
        "heat a mug and put it on the table",
    )
    memory.insights.record_tasks(
        [task("fail", FAILED_HEATING, status="failed", actions=())],
        space=space,
    )
    result = memory.insights.feedback("fail", space=space)
    (edit,) = result.plan.edits
    assert edit.operation == "REVISE"
    (new,) = result.created
    assert result.archived == (old,)
    g = graph(memory, space)
    assert g.props("Insight", old)["active"] is False
    assert g.props("Insight", new)["active"] is True
    assert g.props("Insight", new)["text"] == edit.revised_text
    condition = "(Applies only when the task mentions: table.)"
    assert g.props("Insight", new)["text"] == f"{HEAT} {condition}"
    assert g.edges("REVISED_FROM") == {(new, old)}
    # eq. 14: the old node gets the query as negative evidence; eq. 15: the new one keeps the
    # old positive evidence plus the query, and no negative evidence
    assert (old, "fail") in g.edges("NEGATIVE")
    assert {t for s, t in g.edges("POSITIVE") if s == new} == {"seed", "seed-1", "fail"}
    assert not {t for s, t in g.edges("NEGATIVE") if s == new}
    trail = memory.insights.history(new, space=space)
    assert trail.ancestors == (old,)
    assert [(e.insight_id, e.operation) for e in trail.edits] == [
        (old, "ADD"),
        (old, "REVISE"),
        (new, "CREATE_REVISION"),
    ]
    assert trail.edits[1].related_id == new and trail.edits[2].related_id == old
    assert memory.insights.history(old, space=space).successors == (new,)


def test_add_links_the_retrieved_insights_as_context(memory: GraphMemory, space: str) -> None:
    helper = seed(memory, space, query="heat some egg and put it on the table")
    memory.insights.record_tasks(
        [
            task(
                "t2",
                "heat some egg and put it on the table",
                actions=("go to fridge 1", "take egg 1", "heat egg 1 with microwave 1"),
            )
        ],
        space=space,
    )
    result = memory.insights.feedback("t2", space=space)
    assert result.plan.add.decision
    (added,) = result.created
    g = graph(memory, space)
    assert g.props("Insight", added)["text"].startswith('What resolved "heat some egg')
    assert {t for s, t in g.edges("POSITIVE") if s == added} == {"t2"}
    (context,) = g.edge_props("CONTEXTUALIZES")
    assert (context["source"], context["target"], context["query_id"]) == (helper, added, "t2")


@pytest.mark.parametrize(
    ("variant", "operation", "negative", "active"),
    [
        ("add+keep", "NONE", 0, True),
        ("add+keep+archive", "PENALIZE", 1, True),
        ("all", "REVISE", 1, False),
    ],
)
def test_ablated_controllers_edit_only_what_they_may(
    memory: GraphMemory, space: str, variant: str, operation: str, negative: int, active: bool
) -> None:
    old = seed(
        memory,
        space,
        HEAT,
        "heat some egg and put it on the table",
        "heat a mug and put it on the table",
    )
    memory.insights.record_tasks(
        [task("fail", FAILED_HEATING, status="failed", actions=())],
        space=space,
    )
    result = memory.insights.feedback("fail", space=space, allowed=VARIANTS[variant])
    assert [e.operation for e in result.plan.edits] == [operation]
    insight = memory.insights.get_insight(old, space=space)
    assert (insight.negative, insight.active) == (negative, active)
    trail = memory.insights.history(old, space=space).edits
    edits = [e.operation for e in trail if e.insight_id == old]
    assert edits == ["ADD"] + ([] if operation == "NONE" else [operation])


def test_failed_tasks_draw_no_context_edges_and_add_nothing(
    memory: GraphMemory, space: str
) -> None:
    seed(memory, space, query="heat egg")
    memory.insights.record_tasks(
        [task("f", "heat egg", status="failed", actions=("heat egg 1",))], space=space
    )
    result = memory.insights.feedback("f", space=space)
    assert not result.plan.add.decision and result.created == ()
    assert graph(memory, space).edges("CONTEXTUALIZES") == set()


def test_feedback_is_applied_once(memory: GraphMemory, space: str) -> None:
    seed(memory, space)
    memory.insights.record_tasks([task("t2", "heat some egg again")], space=space)
    first = memory.insights.feedback("t2", space=space)
    before = memory.stats(space)
    again = memory.insights.feedback("t2", space=space)
    assert again.already_applied and not again.applied
    assert again.plan == first.plan
    assert memory.stats(space) == before
    assert memory.insights.pending_feedback(space=space) == ["seed"]


def test_a_dry_run_changes_nothing(memory: GraphMemory, space: str) -> None:
    seed(memory, space)
    memory.insights.record_tasks([task("t2", "heat some egg again")], space=space)
    before = memory.stats(space)
    dry = memory.insights.feedback("t2", space=space, dry_run=True)
    assert not dry.applied and dry.plan.edits
    assert memory.stats(space) == before
    assert memory.insights.get_task("t2", space=space).plan is None
    assert memory.insights.pending_feedback(space=space) == ["seed", "t2"]


def test_a_stored_plan_is_the_one_applied(memory: GraphMemory, space: str) -> None:
    """A run that stopped after storing its plan is finished with that plan, not a new one."""
    insight = seed(memory, space)
    memory.insights.record_tasks([task("t2", "heat some egg again", actions=())], space=space)
    stored = ControllerPlan(
        (EditDecision(insight, "ARCHIVE", reason="judged earlier"),),
        AddDecision(False, reason="nothing"),
        decided_by="controller:llm:earlier",
    )
    memory.store.write(
        "insights/save_plan",
        {"space": space, "id": "t2", "plan_json": stored.to_json(), "now": 1},
    )
    result = memory.insights.feedback("t2", space=space)
    assert result.plan == stored
    trail = memory.insights.history(insight, space=space)
    assert trail.edits[-1].operation == "ARCHIVE"
    assert trail.edits[-1].actor == "controller:llm:earlier"
    assert not trail.insight.active


def test_unknown_tasks_are_not_found(memory: GraphMemory, space: str) -> None:
    seed(memory, space)
    with pytest.raises(NotFound, match="no recorded task 'nope'"):
        memory.insights.feedback("nope", space=space)
    with pytest.raises(NotFound, match="no insight"):
        memory.insights.history("ins-missing", space=space)
    with pytest.raises(NotFound, match="'ghost'"):
        memory.insights.add_insight("x", space=space, evidence=["ghost"])


def test_adding_the_same_insight_twice_stores_it_once(memory: GraphMemory, space: str) -> None:
    first = seed(memory, space)
    before = memory.stats(space)
    assert memory.insights.add_insight(HEAT, space=space, evidence=["seed"]).id == first
    assert memory.stats(space) == before


# --- interrupted runs ------------------------------------------------------------------------
class Interrupted(Exception):
    pass


class StopAfter:
    """A store that dies before its n-th write (counting every batch), like a kill -9."""

    def __init__(self, inner: Any, n: int) -> None:
        self._inner = inner
        self.dialect = inner.dialect
        self.target = inner.target
        self.left = n

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def write(self, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        if self.left == 0:
            raise Interrupted(query)
        self.left -= 1
        return self._inner.write(query, params)  # type: ignore[no-any-return]

    def write_batches(
        self,
        query: str,
        rows: Sequence[Mapping[str, Any]],
        *,
        batch_size: int,
        params: Mapping[str, Any] | None = None,
        on_batch: Callable[[int], None] | None = None,
    ) -> int:
        for start in range(0, len(rows), batch_size):
            self.write(query, {**(params or {}), "rows": list(rows[start : start + batch_size])})
        return len(rows)


def _timeless(memory: GraphMemory, space: str) -> list[Any]:
    out = []
    for record in dump_records(memory, space):
        props = {
            k: v
            for k, v in record["props"].items()
            if not (k == "at" or k.endswith("_at")) and k != "embedding"
        }
        out.append({**record, "props": props})
    return sorted(out, key=repr)


def _scenario(memory: GraphMemory, space: str) -> None:
    """Two failed tasks over three insights (revised, penalised then archived, penalised),
    then a resolved one (keep and add), and an insight of another kind of task that is not
    applicable. Every step is safe to repeat, so a rerun simply runs it all again. Every
    recorded task is handed its five nearest tasks (no seed margin), so each edit occurs."""
    wide = RetrievalParams(seed_margin=math.inf)
    memory.insights.record_tasks(
        [
            task("s1", "heat some egg and put it on the table", actions=()),
            task("s2", "heat egg on the table", actions=()),
            task("s3", "heat a mug and put it on the table", actions=()),
            task("s4", "cool egg on the table", actions=()),
        ],
        space=space,
        params=wide,
    )
    memory.insights.add_insight("Heat it first.", space=space, evidence=["s1", "s3"])
    memory.insights.add_insight("Eggs go on the table.", space=space, evidence=["s2"])
    memory.insights.add_insight("Tables hold eggs.", space=space, evidence=["s1", "s2"])
    # learnt on one heating and one cooling: its source structure is unknown, and it
    # recommends no actions
    memory.insights.add_insight("Mind the eggs.", space=space, evidence=["s1", "s4"])
    for failed in ("f0", "f1"):
        memory.insights.record_tasks(
            [task(failed, f"heat egg on the table {failed}", status="failed", actions=("x",))],
            space=space,
            params=wide,
        )
        memory.insights.feedback(failed, space=space)
    memory.insights.record_tasks(
        [task("r", "heat some egg and put it on the table", actions=("heat egg 1", "put egg 1"))],
        space=space,
        params=wide,
    )
    memory.insights.feedback("r", space=space)


def test_a_run_killed_at_any_write_is_finished_by_the_next(memory: GraphMemory, space: str) -> None:
    reference_space = space + "-ref"
    _scenario(memory, reference_space)
    reference = _timeless(memory, reference_space)
    operations = {
        e.operation
        for i in memory.insights.list_insights(space=reference_space, include_archived=True)
        for e in memory.insights.history(i.id, space=reference_space).edits
    }
    assert {
        "REVISE",
        "ARCHIVE",
        "PENALIZE",
        "KEEP",
        "ADD",
        "CREATE_REVISION",
        "NOT_APPLICABLE",
    } <= operations
    n = 0
    while True:
        trial = f"{space}-{n}"
        dying = GraphMemory(
            memory.settings, store=StopAfter(memory.store, n), embedder=memory.embedder
        )
        try:
            _scenario(dying, trial)
        except Interrupted:
            _scenario(memory, trial)
            assert _timeless(memory, trial) == reference, f"killed before write {n}"
            n += 1
            continue
        break
    assert n > 15  # every write of the scenario was interrupted once


def test_the_add_guard_sees_its_own_space_however_many_others_say_the_same(
    memory: GraphMemory, space: str
) -> None:
    """The vector index is shared by every space of the graph: with more spaces holding the
    same insight than the index returns neighbours, an index-based guard saw none of its own
    space's and stored the insight again."""
    from graphmem_neo4j.insights.rules import templated_insight

    first = task("first", "put a clean mug in the coffee machine")
    text = templated_insight(first.query, first.steps)
    assert text is not None
    for n in range(110):  # more than RetrievalParams.candidates (100)
        memory.insights.add_insight(text, space=f"{space}-crowd-{n}")
    memory.insights.record_tasks([first], space=space, learn=True)
    again = task("again", first.query)
    judged = memory.insights.record_tasks([again], space=space, learn=True).tasks[0].feedback
    assert judged is not None and list(judged.created) == []
    active = [
        p
        for (label, _), p in graph(memory, space).nodes.items()
        if label == "Insight" and p["active"]
    ]
    assert [p["text"] for p in active] == [text]
