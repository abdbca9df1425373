import json
from collections import deque
from typing import Any, TypeVar

import pytest
from pydantic import BaseModel, ValidationError

from graphmem_neo4j.errors import LLMError
from graphmem_neo4j.insights.controller import (
    SYSTEM_PROMPT,
    ControllerAnswer,
    build_user_prompt,
    llm_plan,
    problems,
    restrict,
    to_plan,
)
from graphmem_neo4j.insights.models import (
    ADD_KEEP,
    ADD_KEEP_ARCHIVE,
    AddDecision,
    ControllerInput,
    ControllerPlan,
    EditDecision,
    RetrievedInsight,
    Step,
)
from graphmem_neo4j.llm import TokenUsage

T = TypeVar("T", bound=BaseModel)


def retrieved(id: str, text: str) -> RetrievedInsight:
    return RetrievedInsight(id, text, True, 1, 2.0, 3, 1)


TASK = ControllerInput(
    task_id="t1",
    query="cool some egg and put it in the countertop",
    status="failed",
    steps=(Step("heat egg 1 with microwave 1", "The egg is hot."),),
    answer="put a hot egg down",
    feedback="The egg had to be cold.",
    retrieved=(
        retrieved("i1", "Heat food in the microwave."),
        retrieved("i2", "Check the fridge."),
    ),
)


def answer(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "insight_edits": [
            {
                "insight_id": "i1",
                "operation": "REVISE",
                "revised_insight_text": "Heat only hot tasks.",
            },
            {"insight_id": "i2", "operation": "KEEP", "revised_insight_text": None},
        ],
        "add_new_insight": {"decision": True, "new_insight_text": "Cool food in the fridge."},
    }
    base.update(overrides)
    return base


class ScriptedLLM:
    """An LLMClient that answers from a script and records the prompts."""

    model = "scripted"

    def __init__(self, *answers: dict[str, Any]) -> None:
        self.answers = deque(answers)
        self.prompts: list[tuple[str, str]] = []
        self.schemas: list[object] = []
        self.usage = TokenUsage()

    def complete_json(
        self, *, system: str, user: str, schema: type[T], json_schema: object = None
    ) -> T:
        self.prompts.append((system, user))
        self.schemas.append(json_schema)
        return schema.model_validate(self.answers.popleft())


def test_the_prompt_is_the_papers_with_the_task_filled_in() -> None:
    assert SYSTEM_PROMPT.startswith("You are a graph memory controller.")
    assert "The revised insight must correct or narrow the original insight" in SYSTEM_PROMPT
    user = build_user_prompt(TASK)
    assert "Current query:\ncool some egg and put it in the countertop" in user
    assert "agent: heat egg 1 with microwave 1 -> The egg is hot." in user
    assert "Final answer:\nput a hot egg down" in user
    assert "Task feedback:\nStatus: Failed. The egg had to be cold." in user
    listed = json.loads(user.split("Retrieved insights:\n")[1].split("\nReturn only")[0])
    assert [i["insight_id"] for i in listed] == ["i1", "i2"]
    assert listed[0]["positive_evidence"] == 3 and listed[0]["negative_evidence"] == 1
    assert user.endswith('"add_new_insight": {"decision": false,"new_insight_text": null}}')


@pytest.mark.parametrize(
    "bad",
    [
        answer(extra=1),
        answer(add_new_insight={"decision": "yes", "new_insight_text": None}),
        answer(
            insight_edits=[
                {"insight_id": "i1", "operation": "DELETE", "revised_insight_text": None}
            ]
        ),
        answer(insight_edits=[{"insight_id": "i1", "operation": "KEEP"}]),
        {"insight_edits": []},
    ],
)
def test_the_schema_is_enforced_exactly(bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ControllerAnswer.model_validate(bad)


def check(data: dict[str, Any]) -> list[str]:
    return problems(ControllerAnswer.model_validate(data), TASK)


def test_a_good_answer_has_no_problems_and_becomes_a_plan() -> None:
    good = ControllerAnswer.model_validate(answer())
    assert problems(good, TASK) == []
    plan = to_plan(good, TASK, decided_by="controller:llm:x")
    assert [(e.insight_id, e.operation) for e in plan.edits] == [("i1", "REVISE"), ("i2", "KEEP")]
    assert plan.edits[0].revised_text == "Heat only hot tasks."
    assert plan.add == AddDecision(True, "Cool food in the fridge.", plan.add.reason)


@pytest.mark.parametrize(
    ("edits", "add", "expected"),
    [
        ([("i1", "KEEP", None), ("i9", "KEEP", None)], None, "'i9' is not one of the retrieved"),
        ([("i1", "KEEP", None), ("i1", "ARCHIVE", None)], None, "more than one operation"),
        ([("i1", "KEEP", None)], None, "no operation for insight_id 'i2'"),
        ([("i1", "REVISE", " "), ("i2", "KEEP", None)], None, "needs revised_insight_text"),
        (
            [("i1", "REVISE", "Heat food in the  microwave."), ("i2", "KEEP", None)],
            None,
            "repeats the original text",
        ),
        ([("i1", "KEEP", "x"), ("i2", "KEEP", None)], None, "must be null for KEEP"),
        ([("i1", "KEEP", None), ("i2", "KEEP", None)], (True, None), "new_insight_text is empty"),
        ([("i1", "KEEP", None), ("i2", "KEEP", None)], (False, "x"), "must be null when"),
    ],
)
def test_problems_catch_what_the_schema_cannot(
    edits: list[tuple[str, str, str | None]], add: tuple[bool, str | None] | None, expected: str
) -> None:
    data = answer(
        insight_edits=[
            {"insight_id": i, "operation": op, "revised_insight_text": text}
            for i, op, text in edits
        ]
    )
    if add is not None:
        data["add_new_insight"] = {"decision": add[0], "new_insight_text": add[1]}
    found = check(data)
    assert any(expected in p for p in found), found


def test_rejected_answers_are_sent_back_with_the_reason() -> None:
    hallucinated = answer(
        insight_edits=[
            {"insight_id": "i1", "operation": "KEEP", "revised_insight_text": None},
            {"insight_id": "made-up", "operation": "ARCHIVE", "revised_insight_text": None},
        ]
    )
    llm = ScriptedLLM(hallucinated, answer())
    plan = llm_plan(llm, TASK)
    assert plan.decided_by == "controller:llm:scripted"
    assert [e.operation for e in plan.edits] == ["REVISE", "KEEP"]
    assert len(llm.prompts) == 2
    assert "previous answer was rejected" not in llm.prompts[0][1]
    assert "'made-up' is not one of the retrieved insights" in llm.prompts[1][1]


def test_attempts_are_bounded() -> None:
    bad = answer(insight_edits=[])
    llm = ScriptedLLM(bad, bad, bad, answer())
    with pytest.raises(LLMError, match="3 attempts: no operation for insight_id"):
        llm_plan(llm, TASK, attempts=3)
    assert len(llm.prompts) == 3


def test_restrict_downgrades_forbidden_edits() -> None:
    plan = ControllerPlan(
        (
            EditDecision("a", "REVISE", "narrower", "r"),
            EditDecision("b", "ARCHIVE", None, "r"),
            EditDecision("c", "KEEP", None, "r"),
        ),
        AddDecision(False),
        "controller:llm:x",
    )
    archive_only = restrict(plan, ADD_KEEP_ARCHIVE)
    assert [e.operation for e in archive_only.edits] == ["ARCHIVE", "ARCHIVE", "KEEP"]
    assert archive_only.edits[0].revised_text is None
    assert "may not REVISE" in archive_only.edits[0].reason
    assert [e.operation for e in restrict(plan, ADD_KEEP).edits] == ["NONE", "NONE", "KEEP"]


def test_the_requested_schema_names_only_the_retrieved_ids() -> None:
    llm = ScriptedLLM(answer())
    llm_plan(llm, TASK)
    (sent,) = llm.schemas
    assert isinstance(sent, dict)
    edit = sent["$defs"]["InsightEditAnswer"]["properties"]["insight_id"]
    assert edit["enum"] == ["i1", "i2"]
    edits = sent["properties"]["insight_edits"]
    assert edits["minItems"] == edits["maxItems"] == 2
    # the pydantic model itself stays general: the checks in `problems` still run
    assert (
        "enum"
        not in ControllerAnswer.model_json_schema()["$defs"]["InsightEditAnswer"]["properties"][
            "insight_id"
        ]
    )
