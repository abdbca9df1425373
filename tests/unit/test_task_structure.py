"""Task structure without a world's vocabulary: read from a trajectory's own actions, and
learned from a space's resolved tasks to be predicted from a goal."""

import subprocess
import sys

import pytest

from graphmem_neo4j.lexical import GoalIndex
from graphmem_neo4j.task_model import MIN_EXAMPLES, GoalModel
from graphmem_neo4j.task_similarity import KeyReader, recorded_key, task_key
from graphmem_neo4j.task_structure import parse_action, trajectory_structure


def test_actions_are_parsed_in_any_action_language() -> None:
    assert parse_action("take mug 1 from desk 1").args == ("mug 1", "desk 1")
    assert parse_action("focus on substance in metal pot").verb == "focus"
    assert parse_action("focus on substance in metal pot").thing == "substance"
    assert parse_action("move metal pot to stove").thing == "pot"
    assert parse_action("search(query='red shoes', max=50)").verb == "search"
    assert parse_action("search(query='red shoes', max=50)").args == ("red shoes", "50")
    call = parse_action('{"tool": "Buy", "arguments": {"item": "shoe 3"}}')
    assert (call.verb, call.thing) == ("buy", "shoe")
    assert parse_action("  ").verb == ""


@pytest.mark.parametrize(
    ("actions", "structure"),
    [
        # ALFWorld: verbs applied to the thing the last action acted on
        (
            [
                "go to desk 1",
                "take mug 1 from desk 1",
                "go to sinkbasin 1",
                "clean mug 1 with sinkbasin 1",
                "go to shelf 1",
                "put mug 1 in/on shelf 1",
            ],
            "take clean put",
        ),
        (
            [
                "take pen 1 from desk 1",
                "put pen 1 in/on box 1",
                "take pen 2 from bed 1",
                "put pen 2 in/on box 1",
            ],
            "take put x2",
        ),
        (["open drawer 1", "take cd 1 from drawer 1", "go to desk 1", "use desklamp 1"], "use"),
        # ScienceWorld
        (
            [
                "open door to kitchen",
                "pick up thermometer",
                "move metal pot to stove",
                "activate stove",
                "focus on metal pot",
            ],
            "move focus",
        ),
        # a tool-calling agent
        (["search(query='red shoes')", "open(item='shoe 3')", "buy(item='shoe 3')"], "open buy"),
        (["wait", "inventory"], None),
    ],
)
def test_a_trajectory_shows_its_structure(actions: list[str], structure: str | None) -> None:
    assert trajectory_structure(actions) == structure


def _space() -> list[tuple[str, str]]:
    return [
        ("heat some egg and put it in countertop", "take heat put"),
        ("put a hot apple in fridge", "take heat put"),
        ("cool some bread and put it in countertop", "take cool put"),
        ("put a cool tomato in microwave", "take cool put"),
        ("put a potato in microwave", "take put"),
        ("put some bread on countertop", "take put"),
        ("look at the book under the desklamp", "use"),
        ("examine the pen with the desklamp", "use"),
        ("heat some potato and put it in garbagecan", "take heat put"),
        ("cool some apple and put it in garbagecan", "take cool put"),
    ]


def test_the_goal_model_learns_from_the_space_and_abstains_when_unsure() -> None:
    assert GoalModel.fit(_space()[: MIN_EXAMPLES - 1]).predict("heat a mug") is None
    model = GoalModel.fit(_space())
    assert model.predict("heat some mug and put it in cabinet") == "take heat put"
    assert model.predict("look at the cd under the desklamp") == "use"
    assert model.predict("book a flight to paris") is None  # no word it has seen
    model.learn("book a flight to paris", "search book")
    assert model.examples == len(_space()) + 1


def test_the_callers_type_wins() -> None:
    reader = KeyReader(GoalModel.fit(_space()))
    assert task_key("heat some mug", reader, "my-kind") == "my-kind"
    assert recorded_key("heat some mug", True, ["take mug 1 from x"], reader, "t") == "t"
    assert recorded_key("heat some mug", True, ["take mug 1 from x 1"], reader) == "take"
    assert recorded_key("heat some mug and put it in x", False, [], reader) == "take heat put"


GOALS = [
    "put a cool tomato in microwave.",
    "heat some egg and put it in countertop",
    "look at alarmclock under the desklamp.",
    "boil water",
    "Find the cheapest red shoes under 50 dollars and buy them",
]


def test_the_default_similarity_never_imports_a_domain_pack() -> None:
    """Run in a fresh interpreter: reading goals and trajectories the default way loads no
    pack module."""
    code = (
        "import sys\n"
        "from graphmem_neo4j.memory import GraphMemory\n"
        "from graphmem_neo4j.settings import Settings\n"
        "from graphmem_neo4j.task_model import GoalModel\n"
        "from graphmem_neo4j.task_similarity import KeyReader, recorded_key, task_key\n"
        "r = KeyReader.of(GoalModel(), Settings().domain_pack)\n"
        f"for g in {GOALS!r}:\n"
        "    task_key(g, r); recorded_key(g, True, ['take mug 1 from x 1'], r)\n"
        "assert not [m for m in sys.modules if m.startswith('graphmem_neo4j.domain_packs.')]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_the_default_answers_are_the_same_without_any_world_vocabulary(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = GoalModel.fit(_space())
    actions = ["take mug 1 from desk 1", "heat mug 1 with microwave 1", "put mug 1 in/on x 1"]

    def answers() -> list[object]:
        reader = KeyReader.of(model, "")
        goals = GoalIndex()
        goals.add_all((str(n), g, ()) for n, g in enumerate(GOALS))
        lexical = goals.similarities(GOALS[0], [str(n) for n in range(len(GOALS))])
        keys = [(task_key(g, reader), recorded_key(g, True, actions, reader)) for g in GOALS]
        return [*keys, lexical]

    before = answers()
    monkeypatch.setitem(sys.modules, "graphmem_neo4j.domain_packs.alfworld", None)
    assert answers() == before
    with pytest.raises(ImportError):
        KeyReader.of(model, "alfworld")
