import pytest

from graphmem_neo4j.experience.models import ActionKey, Step
from graphmem_neo4j.experience.normalize import (
    abstract_observation,
    abstract_text,
    is_uninformative,
    names_of,
    normalize_action,
    normalize_observation,
    normalize_task,
    skeleton,
    task_roles,
)


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ("take alarmclock 2 from dresser 1", ActionKey("take", "alarmclock 2", "dresser 1")),
        ("put mug 1 in/on coffeemachine 1", ActionKey("put", "mug 1", "coffeemachine 1")),
        ("go to shelf 1", ActionKey("go", "", "shelf 1")),
        ("  Go   to the Shelf 1. ", ActionKey("go", "", "shelf 1")),
        ("open drawer 3", ActionKey("open", "drawer 3")),
        ("clean mug 1 with sinkbasin 1", ActionKey("clean", "mug 1", "sinkbasin 1")),
        ("use desklamp 1", ActionKey("use", "desklamp 1")),
        ("look", ActionKey("look")),
        ("click the search button", ActionKey("click", "search button")),
        ("type 'laptop' into search box", ActionKey("type", "'laptop'", "search box")),
    ],
)
def test_actions_normalise_to_type_object_receptacle(raw: str, key: ActionKey) -> None:
    assert normalize_action(raw) == key


def test_instance_numbers_keep_two_drawers_apart() -> None:
    assert normalize_action("open drawer 1").key != normalize_action("open drawer 2").key


def test_observation_drops_banner_and_task_sentence() -> None:
    raw = "-= Welcome to TextWorld, ALFRED! =-\n\nYou see a Bed 1.\n\nYour task is to: find it."
    assert normalize_observation(raw) == "you see a bed 1."


@pytest.mark.parametrize("text", ["Nothing happens.", " nothing happens ", "", "Invalid action!"])
def test_uninformative_observations(text: str) -> None:
    assert is_uninformative(text)


@pytest.mark.parametrize("text", ["You open the drawer 1.", "Nothing here but dust."])
def test_informative_observations(text: str) -> None:
    assert not is_uninformative(text)


def test_task_text_normalisation() -> None:
    assert normalize_task("Your task is to:  Put a Mug  in coffeemachine. ") == (
        "put a mug in coffeemachine"
    )


def test_names_come_from_actions_and_numbered_things_seen() -> None:
    steps = [
        Step("take mug 1 from countertop 2", "You pick up the mug 1."),
        Step("go to fridge 1", "The fridge 1 is open. In it, you see a egg 3."),
    ]
    assert names_of(steps, "You see a toaster 1.") == {
        "mug",
        "countertop",
        "fridge",
        "egg",
        "toaster",
    }


def test_roles_follow_the_order_things_are_named_in_the_task() -> None:
    roles = task_roles("put a hot mug in coffeemachine", {"coffeemachine", "mug", "fridge"})
    assert roles == {"mug": "<1>", "coffeemachine": "<2>"}


def test_skeleton_blanks_the_things_and_keeps_the_procedure() -> None:
    names = {"mug", "coffeemachine", "apple", "fridge"}
    hot_mug = skeleton("put a hot mug in coffeemachine.", names)
    hot_apple = skeleton("put a hot apple in fridge.", names)
    plain_mug = skeleton("put a mug in coffeemachine.", names)
    assert hot_mug == hot_apple == "put hot something something"
    assert plain_mug == "put something something"


def test_abstraction_uses_roles_and_kinds() -> None:
    roles = {"mug": "<1>", "coffeemachine": "<2>"}
    names = {"mug", "coffeemachine", "countertop"}
    assert abstract_text("take mug 1 from countertop 2", roles, names) == "take <1> from countertop"
    state = "on the countertop 2, you see a bread 1, a mug 1, and a spoon 2."
    assert abstract_observation(state, roles, names) == "on the countertop, you see <1>."
    assert abstract_observation("on the shelf 1, you see nothing.", roles, names) == (
        "on the shelf 1, you see nothing."
    )
    assert abstract_observation("on the countertop 1, you see a fork 1.", roles, names) == (
        "on the countertop, you see things."
    )
