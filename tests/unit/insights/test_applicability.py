from dataclasses import replace

from graphmem_neo4j.insights.applicability import (
    ACTION_OVERLAP,
    action_key,
    applicability,
    recommended_actions,
)
from graphmem_neo4j.insights.models import RetrievedInsight, Step

PLAN = (
    'What resolved "heat some egg and put it in countertop": go to fridge; open fridge; '
    "take egg from fridge; go to microwave; heat egg with microwave; go to countertop; "
    "put egg in/on countertop."
)


def insight(text: str = PLAN, positive: tuple[str, ...] = ()) -> RetrievedInsight:
    return RetrievedInsight("i", text, True, 1, 1.0, len(positive), 0, positive)


def steps(*actions: str) -> tuple[Step, ...]:
    return tuple(Step(a, "ok") for a in actions)


def test_actions_are_normalised_as_the_experience_layer_does_without_numbers() -> None:
    assert action_key("take egg 1 from fridge 1") == ("take", "egg", "fridge")
    assert action_key("Put egg 2 in/on countertop 3.") == ("put", "egg", "countertop")
    assert action_key("go to fridge 1") is None  # navigation recommends nothing
    assert recommended_actions(PLAN) == [
        ("open", "fridge", ""),
        ("take", "egg", "fridge"),
        ("heat", "egg", "microwave"),
        ("put", "egg", "countertop"),
    ]
    conditional = PLAN + " (Applies only when the task mentions: heat.)"
    assert recommended_actions(conditional) == recommended_actions(PLAN)
    assert recommended_actions("Always preheat the microwave.") == []
    assert recommended_actions("open the lid; pour water") == [
        ("open", "lid", ""),
        ("pour", "water", ""),
    ]


def test_structure_decides_when_both_sides_have_one() -> None:
    """Structures as the graph stores them (here: named by the caller or a domain pack)."""
    source = replace(
        insight(positive=("heat some egg and put it in countertop",)), positive_keys=("heat",)
    )
    same = applicability(source, "put a hot potato in diningtable", (), key="heat")
    other = applicability(source, "put a cool potato in diningtable", (), key="cool")
    assert (same.applies, same.rule) == (True, "structure")
    assert (other.applies, other.rule) == (False, "structure")


def test_without_structure_the_recommended_actions_must_occur_in_the_trajectory() -> None:
    manual = insight(positive=("do the egg thing",))  # no structure in its source
    done = steps(
        "go to fridge 1", "open fridge 1", "take egg 1 from fridge 1", "heat egg 1 with microwave 1"
    )
    half = steps("open fridge 1", "take egg 2 from fridge 1")
    little = steps("open fridge 1")
    verdicts = [applicability(manual, "do the egg thing again", s) for s in (done, half, little)]
    assert [v.rule for v in verdicts] == ["actions"] * 3
    assert [v.applies for v in verdicts] == [True, True, False]  # 4, 2 and 1 of 4
    assert ACTION_OVERLAP == 0.5
    assert "3 of its 4 recommended actions" in verdicts[0].detail


def test_nothing_to_compare_means_not_applicable() -> None:
    verdict = applicability(insight("Be careful.", ("a task",)), "another task", steps("look"))
    assert (verdict.applies, verdict.rule) == (False, "none")
    assert verdict.explain().startswith("[rule none]")


def test_a_goal_far_from_its_sources_goals_overrides_a_matching_structure() -> None:
    """The goal rule: kinds of task that share a structure keep their evidence apart."""
    source = replace(insight(positive=("find an animal",)), positive_keys=("focus move",))
    args = (source, "find a plant", ())
    unused = applicability(*args, key="focus move")
    close = applicability(*args, key="focus move", goal_close=True)
    far = applicability(*args, key="focus move", goal_close=False)
    assert (unused.applies, unused.rule) == (True, "structure")
    assert (close.applies, close.rule) == (True, "structure")
    assert (far.applies, far.rule) == (False, "goal")
    assert "focus move" in far.detail  # says what the structure rule found
    other = applicability(*args, key="heat", goal_close=True)  # never makes one apply
    assert (other.applies, other.rule) == (False, "structure")
