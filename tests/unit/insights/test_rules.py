import pytest

from graphmem_neo4j.insights.models import (
    ADD_KEEP,
    ADD_KEEP_ARCHIVE,
    FULL_CONTROLLER,
    ControllerInput,
    ControllerPlan,
    RetrievedInsight,
    Step,
)
from graphmem_neo4j.insights.rules import (
    REVISION_MARKER,
    condition_keywords,
    is_conditional,
    narrowing_keywords,
    offline_plan,
    plan_of,
    revised_text,
    templated_insight,
)
from graphmem_neo4j.task_similarity import KeyReader, recorded_key, task_key

HEAT = "Heat the object with the microwave before putting it down."
# The tasks here are ALFWorld's: they are keyed as a space with ALFWorld's domain pack keys them
# (the structures the graph stores and hands the controller).
PACK = KeyReader.of(None, "alfworld")


def insight(
    id: str = "i1",
    *,
    text: str = HEAT,
    positive: tuple[str, ...] = ("heat some egg and put it in fridge",),
    negative: tuple[str, ...] = (),
    active: bool = True,
) -> RetrievedInsight:
    return RetrievedInsight(
        id=id,
        text=text,
        active=active,
        rank=1,
        score=1.0,
        positive_total=len(positive),
        negative_total=len(negative),
        positive_queries=positive,
        negative_queries=negative,
        positive_keys=tuple(task_key(q, PACK) or "" for q in positive),
    )


TASK = "heat some potato and put it in diningtable"


def task(
    status: str, *retrieved: RetrievedInsight, steps: tuple[Step, ...] = (), query: str = TASK
) -> ControllerInput:
    return ControllerInput(
        task_id="t9",
        query=query,
        status=status,  # type: ignore[arg-type]
        steps=steps,
        answer=None,
        feedback=None,
        retrieved=retrieved,
        task_key=recorded_key(query, status == "resolved", [s.action for s in steps], PACK) or "",
    )


def ops(plan: ControllerPlan) -> list[str]:
    return [e.operation for e in plan.edits]


def test_resolved_keeps_every_retrieved_insight_that_applied() -> None:
    plan = offline_plan(
        task("resolved", insight("a"), insight("b", active=False)), candidate=None, covered_by=None
    )
    assert ops(plan) == ["KEEP", "KEEP"]
    assert "stays archived" in plan.edits[1].reason
    assert "[rule structure]" in plan.edits[0].reason
    assert plan.decided_by == "controller:offline"


def test_an_insight_of_another_task_structure_gets_no_evidence() -> None:
    """The bug of issue 18: a resolved task kept every insight it was handed, so an insight
    learnt on heating collected positive evidence from cooling, cleaning, ... tasks."""
    cool = insight("c", positive=("cool some egg and put it in fridge",))
    resolved = offline_plan(task("resolved", cool), candidate=None, covered_by=None)
    failed = offline_plan(task("failed", cool), candidate=None, covered_by=None)
    assert ops(resolved) == ops(failed) == ["NOT_APPLICABLE"]
    assert resolved.edits[0].reason.startswith("[rule structure]")
    assert "'cool' tasks, this one is 'heat'" in resolved.edits[0].reason


def test_failure_archives_once_negative_evidence_outweighs_positive() -> None:
    weak = insight(positive=("heat some egg",), negative=("cool some apple",))
    plan = offline_plan(task("failed", weak), candidate=None, covered_by=None)
    assert ops(plan) == ["ARCHIVE"]
    assert "2 now outweighs positive 1" in plan.edits[0].reason


def test_failure_of_a_supported_insight_revises_it_narrower() -> None:
    supported = insight(
        positive=("heat some egg and put it in fridge", "heat an egg and put it in cabinet"),
        negative=(),
    )
    plan = offline_plan(task("failed", supported), candidate=None, covered_by=None)
    (edit,) = plan.edits
    assert edit.operation == "REVISE"
    assert edit.revised_text == f"{HEAT} ({REVISION_MARKER} egg.)"
    assert condition_keywords(edit.revised_text) == ["egg"]


def test_a_conditional_insight_is_penalised_not_revised_again() -> None:
    narrowed = insight(
        text=revised_text(HEAT, ["heat"]),
        positive=("heat some egg", "heat a mug"),
        negative=(),
    )
    plan = offline_plan(task("failed", narrowed), candidate=None, covered_by=None)
    assert ops(plan) == ["PENALIZE"]
    assert "stays active" in plan.edits[0].reason


def test_a_single_supporting_query_is_too_little_to_narrow_by() -> None:
    once = insight(positive=("heat some egg and put it in fridge",))
    plan = offline_plan(task("failed", once), candidate=None, covered_by=None)
    assert ops(plan) == ["PENALIZE"]


def test_no_narrowing_words_means_penalise() -> None:
    same_words = insight(positive=(TASK,) * 2)
    plan = offline_plan(task("failed", same_words), candidate=None, covered_by=None)
    assert ops(plan) == ["PENALIZE"]


def test_an_insight_archived_meanwhile_only_gets_negative_evidence() -> None:
    plan = offline_plan(
        task("failed", insight(active=False, negative=("a", "b"))),
        candidate=None,
        covered_by=None,
    )
    assert ops(plan) == ["PENALIZE"]


@pytest.mark.parametrize(
    ("allowed", "expected"),
    [
        (FULL_CONTROLLER, ["REVISE", "ARCHIVE"]),
        (ADD_KEEP_ARCHIVE, ["PENALIZE", "ARCHIVE"]),
        (ADD_KEEP, ["NONE", "NONE"]),
    ],
)
def test_ablated_controllers_fall_back_to_what_they_may_do(
    allowed: frozenset[str], expected: list[str]
) -> None:
    supported = insight("s", positive=("heat some egg", "heat an egg"))
    weak = insight("w", positive=("heat a mug",), negative=("heat a cup",))
    plan = offline_plan(
        task("failed", supported, weak), candidate=None, covered_by=None, allowed=allowed
    )
    assert ops(plan) == expected


def test_add_only_for_resolved_uncovered_tasks() -> None:
    text = "What resolved x: y."
    assert offline_plan(task("resolved"), candidate=text, covered_by=None).add.text == text
    covered = offline_plan(task("resolved"), candidate=text, covered_by="i7").add
    assert not covered.decision and "i7" in covered.reason
    assert not offline_plan(task("failed"), candidate=text, covered_by=None).add.decision
    assert not offline_plan(task("resolved"), candidate=None, covered_by=None).add.decision


def test_narrowing_keywords_come_from_most_positive_queries_and_no_negative_one() -> None:
    positive = [
        "heat some egg and put it in garbagecan",
        "put a hot apple in fridge",
        "heat the mug and place it in coffeemachine",
    ]
    negative = ["cool some egg and put it in garbagecan"]
    assert narrowing_keywords(positive, negative) == ["heat"]
    assert narrowing_keywords([], negative) == []
    assert narrowing_keywords(["alpha beta", "alpha gamma"], []) == ["alpha"]
    assert narrowing_keywords(["alpha beta"], ["beta"]) == ["alpha"]


def test_plans_keep_the_last_of_each_run_and_drop_numbers() -> None:
    steps = tuple(
        Step(a, "")
        for a in [
            "go to shelf 1",
            "go to drawer 3",
            "go to dresser 1",
            "take alarmclock 2 from dresser 1",
            "use desklamp 1",
            "use desklamp 1",
        ]
    )
    assert plan_of(steps) == ["go to dresser", "take alarmclock from dresser", "use desklamp"]
    text = templated_insight("look at  alarmclock\nunder the desklamp", steps)
    assert text == (
        'What resolved "look at alarmclock under the desklamp": go to dresser; '
        "take alarmclock from dresser; use desklamp."
    )
    assert templated_insight("q", ()) is None


def test_conditions_round_trip() -> None:
    text = revised_text("Do X.", ["heat", "hot"])
    assert is_conditional(text) and not is_conditional("Do X.")
    assert condition_keywords(text) == ["heat", "hot"]
    assert condition_keywords("Do X.") == []


def test_a_plan_survives_its_json_form() -> None:
    plan = offline_plan(
        task("failed", insight(positive=("heat some egg", "heat a mug"))),
        candidate=None,
        covered_by=None,
    )
    assert ControllerPlan.from_json(plan.to_json()) == plan
