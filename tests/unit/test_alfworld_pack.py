"""The optional ALFWorld domain pack: its reading of ALFWorld goals and actions."""

import pytest

from graphmem_neo4j.domain_packs import load_pack
from graphmem_neo4j.domain_packs.alfworld import trajectory_procedure
from graphmem_neo4j.task_similarity import (
    KeyReader,
    compatible,
    majority,
    recorded_key,
    similar_tasks,
)
from graphmem_neo4j.task_similarity import task_key as generic_key

PACK = KeyReader.of(None, "alfworld")


def task_key(text: str) -> str | None:
    return generic_key(text, PACK)


@pytest.mark.parametrize(
    ("goal", "key"),
    [
        # ALFWorld's own goal texts, in both of their phrasings
        ("put a cool tomato in microwave.", "cool"),
        ("cool some egg and put it in countertop", "cool"),
        ("Your task is to: heat some apple and put it in sidetable.", "heat"),
        ("put a hot mug in coffeemachine.", "heat"),
        ("put a clean plate in countertop.", "clean"),
        ("clean some mug and put it in the coffeemachine", "clean"),
        ("look at alarmclock under the desklamp.", "light"),
        ("examine the pen with the desklamp.", "light"),
        ("put two soapbar in garbagecan.", "two"),
        ("find two keychain and put them in coffeetable.", "two"),
        ("put some box on armchair.", "place"),
        # a receptacle that does the job is no procedure: a plain placement
        ("put a potato in microwave.", "place"),
        ("put some lettuce in fridge.", "place"),
        # human goal descriptions
        ("Put a heated apple on top of a black shelving unit.", "heat"),
        ("Place the microwaved apple on the black table.", "heat"),
        ("Put a chilled tomato in the microwave.", "cool"),
        ("put washed egg inside microwave", "clean"),
        ("Pick up the alarm clock and turn on the lamp.", "light"),
        ("Put both sets of keys on the coffee table.", "two"),
        ("Move the credit card to the shelf.", "place"),
        # not a household goal: no structure, sentence similarity decides alone
        ("What did Maya adopt, and when?", None),
        ("summarise the quarterly report", None),
    ],
)
def test_the_procedure_is_read_from_the_goal(goal: str, key: str | None) -> None:
    assert task_key(goal) == key


def test_the_first_procedure_word_wins() -> None:
    assert task_key("chill a cleaned tomato in the fridge") == "cool"
    assert task_key("put a clean mug in the warm cabinet") == "clean"


def test_unknown_structure_is_compatible_with_any() -> None:
    assert compatible("heat", "heat")
    assert not compatible("heat", "cool")
    assert compatible(None, "cool") and compatible("cool", None) and compatible(None, None)


def test_an_insight_source_is_the_structure_most_of_its_tasks_share() -> None:
    assert majority(["heat", "heat", "cool", None]) == "heat"
    assert majority(["heat", "cool"]) is None  # a tie tells nothing
    assert majority([None, None]) is None
    assert majority([]) is None


def test_similar_tasks_drop_other_structures_and_keep_the_order() -> None:
    rows = [
        ("put a tomato in microwave", 0.95),
        ("put a cool tomato in microwave", 0.9),
        ("what is this", 0.8),
        ("cool some egg and put it in fridge", 0.7),
    ]
    got = similar_tasks("cool", rows, lambda r: task_key(r[0]), 2)
    assert got == [rows[1], rows[2]]
    assert similar_tasks(None, rows, lambda r: task_key(r[0]), 3) == rows[:3]


def test_a_trajectory_tells_what_was_done_in_alfworld_action_language() -> None:
    take = ["go to countertop 1", "take egg 1 from countertop 1"]
    assert trajectory_procedure([*take, "cool egg 1 with fridge 1", "put egg 1 in/on x 1"]) == (
        "cool"
    )
    assert trajectory_procedure([*take, "use desklamp 1"]) == "light"
    two = ["put egg 1 in/on x 1", "take egg 2 from y 1", "put egg 2 in/on x 1"]
    assert trajectory_procedure([*take, *two]) == "two"
    # the same thing put down twice is one placement
    again = ["put egg 1 in/on x 1", "take egg 1 from x 1", "put egg 1 in/on z 1"]
    assert trajectory_procedure([*take, *again]) == "place"
    assert trajectory_procedure(["open the ticket", "close the ticket"]) is None


def test_a_task_is_recorded_with_what_it_did_when_that_worked() -> None:
    cooled = ["take egg 1 from fridge 1", "cool egg 1 with fridge 1", "put egg 1 in/on x 1"]
    assert recorded_key("Put an egg on the counter.", True, cooled, PACK) == "cool"
    assert recorded_key("Put an egg on the counter.", False, cooled, PACK) == "place"
    # a trajectory the pack cannot read: its goal's procedure
    assert recorded_key("put a hot egg in fridge", True, ["deploy it"], PACK) == "heat"
    assert recorded_key("put a hot egg in fridge", False, ["deploy it"], PACK) == "heat"


def test_an_unknown_pack_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown domain pack 'webshop'"):
        load_pack("webshop")
