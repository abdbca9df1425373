"""The lexical goal similarity: word weights learnt from the goals given, nothing else."""

from __future__ import annotations

import math

import pytest

from graphmem_neo4j.lexical import MIN_GOALS, GoalIndex, argument_words, terms

BOILER = "Your task is to find the object. First, focus on the thing. Then, move it to the box."


def index(goals: dict[str, str]) -> GoalIndex:
    found = GoalIndex()
    found.add_all((goal_id, text, ()) for goal_id, text in goals.items())
    return found


def test_idf_is_learnt_from_the_goals_given() -> None:
    goals = index({"a": "find an animal", "b": "find a plant", "c": "find a plant now"})
    assert goals.idf("find") == 0.0  # in every goal
    assert goals.idf("animal") == pytest.approx(math.log(4 / 2))
    assert goals.idf("plant") == pytest.approx(math.log(4 / 3))
    assert goals.idf("animal") > goals.idf("plant") > goals.idf("find")


def test_boilerplate_shared_by_every_goal_has_no_weight() -> None:
    goals = index(
        {
            "animal-1": f"{BOILER} animal zebra",
            "animal-2": f"{BOILER} animal lion",
            "plant-1": f"{BOILER} plant fern",
        }
    )
    for word in terms(BOILER):
        assert goals.idf(word) == 0.0
    found = goals.similarities(f"{BOILER} animal tiger", ["animal-1", "animal-2", "plant-1"])
    assert found["plant-1"] == 0.0  # only the boilerplate in common
    assert found["animal-1"] > 0.0 and found["animal-1"] == pytest.approx(found["animal-2"])


def test_the_one_word_that_differs_decides() -> None:
    goals = index(
        {
            "freeze": f"{BOILER} freeze water",
            "melt": f"{BOILER} melt ice",
            "boil": f"{BOILER} boil water",
        }
    )
    found = goals.similarities(f"{BOILER} freeze orange juice", ["freeze", "melt", "boil"])
    assert max(found, key=lambda g: found[g]) == "freeze"
    assert found["melt"] == 0.0


def test_similarity_is_a_cosine_in_unit_range() -> None:
    goals = index({"a": "heat the soup in a pot", "b": "cool the apple", "c": "slice the bread"})
    same = goals.similarities("heat the soup in a pot", ["a", "b", "c", "missing"])
    assert same["a"] == pytest.approx(1.0)
    assert all(0.0 <= v <= 1.0 for v in same.values())
    assert same["missing"] == 0.0


def test_unknown_goals_score_zero_and_goals_that_say_nothing_else_are_alike() -> None:
    assert GoalIndex().similarities("anything", ["x"]) == {"x": 0.0}
    goals = index({"a": "the same words", "b": "the same words", "c": "the same words too"})
    assert goals.similarities("the same words", ["a", "c"]) == {"a": 1.0, "c": 0.0}


def test_adding_a_goal_again_replaces_it() -> None:
    goals = index({"a": "find an animal", "b": "find a plant"})
    goals.add("a", "grow a plant")
    assert len(goals) == 2
    assert goals.idf("animal") == pytest.approx(math.log(3 / 1))
    assert goals.idf("plant") == 0.0
    assert goals.similarities("grow a plant", ["a"])["a"] == pytest.approx(1.0)


def test_weights_move_as_goals_arrive() -> None:
    goals = index({"a": "find an animal", "b": "grow a plant"})
    assert goals.similarities("find an animal now", ["a"])["a"] > 0.0
    goals.add("c", "find an animal quickly")
    goals.add("d", "grow an animal slowly")
    goals.add("e", "find an animal plant")
    assert goals.idf("animal") < goals.idf("plant")
    goals.add("b", "grow a plant animal")  # replaced: now every goal has "animal"
    assert goals.idf("animal") == 0.0  # now in every goal: no longer tells goals apart


def test_argument_words_are_read_from_any_action_language() -> None:
    assert argument_words(["take tomato 1 from countertop 1", "go to fridge 1"]) >= {
        "tomato",
        "countertop",
        "fridge",
    }
    assert "take" not in argument_words(["take tomato 1 from countertop 1"])
    assert argument_words(["mv(source='final_report.pdf', destination='temp')"]) == {
        "final",
        "report",
        "pdf",
        "temp",
    }


def test_words_the_actions_name_as_arguments_weigh_nothing() -> None:
    """Two goals of one kind about different things match; two kinds worded alike do not."""
    goals = index(
        {
            "animal-red": "find an animal then move it to the red box",
            "plant-green": "find a plant then move it to the green box",
            "other": "boil some water",
        }
    )
    before = goals.text_similarities(
        "find an animal then move it to the green box",
        [
            "find an animal then move it to the red box",
            "find a plant then move it to the green box",
        ],
    )
    assert before[0] == pytest.approx(before[1], abs=0.25)  # a colour weighs as a kind does
    goals.add("seen", "move the frog", ["focus on frog", "move frog to red box"])
    goals.add("seen-2", "move the fern", ["move fern to green box"])
    after = goals.text_similarities(
        "find an animal then move it to the green box",
        [
            "find an animal then move it to the red box",
            "find a plant then move it to the green box",
        ],
    )
    assert after[0] == pytest.approx(1.0)
    assert after[1] < 0.9


def test_text_similarities_score_texts_not_stored() -> None:
    goals = index({"a": "heat the soup", "b": "cool the apple", "c": "slice the bread"})
    found = goals.text_similarities("heat the soup", ["heat the soup", "cool the apple", ""])
    assert found[0] == pytest.approx(1.0)
    assert found[1] == 0.0 and found[2] == 0.0
    assert len(goals) == 3  # nothing was stored


def test_two_stored_goals_are_compared_under_the_weights_of_now() -> None:
    goals = index({"a": "heat the apple", "b": "heat the pear"})
    early = goals.stored_similarity("a", "b")  # "heat" is in every goal: only the fruit weighs
    assert early == pytest.approx(goals.similarities("heat the apple", ["b"])["b"])
    goals.add("c", "cool the apple")
    goals.add("d", "cool the pear")
    assert goals.stored_similarity("a", "b") > early  # "heat" now tells kinds apart
    assert goals.stored_similarity("a", "b") == goals.stored_similarity("b", "a")
    assert goals.stored_similarity("a", "missing") == 0.0


def test_new_words_are_those_no_goal_has_and_no_action_named() -> None:
    goals = index({"a": "melt the tin", "b": "freeze the tin"})
    goals.add_arguments(["focus on gallium"])
    assert goals.new_words("boil the gallium 3 times in the pot") == {"boil", "times", "pot"}
    assert goals.new_words("melt the tin") == set()


def templated(kinds: int) -> GoalIndex:
    """MIN_GOALS goals of one kind ("melt X"), then `kinds` goals each of a new kind that a new
    word names, then twice as many of the first kind again, about things already named."""
    goals = GoalIndex()
    metals = [f"metal{n}" for n in range(MIN_GOALS)]
    for n in range(MIN_GOALS):
        goals.add(f"m{n}", f"melt {metals[n]}", [f"heat {metals[n]}"], kind="heat")
    verbs = ["freeze", "boil", "weigh", "polish", "paint", "bend"][:kinds]
    for verb in verbs:
        goals.add(verb, f"{verb} {metals[0]}", [f"{verb} {metals[0]}"], kind=verb)
    for n in range(2 * kinds):
        goals.add(f"again{n}", f"melt {metals[n]}", [], kind="heat")
    return goals


def test_a_new_word_means_a_new_kind_where_the_space_has_seen_it_so() -> None:
    assert GoalIndex().new_word_means_new_kind()  # until a goal with a new word is resolved
    assert templated(kinds=3).new_word_means_new_kind()  # every new word came with a new kind


def test_a_new_word_says_nothing_where_most_goals_bring_one() -> None:
    goals = GoalIndex()
    for n in range(MIN_GOALS + 20):
        kind = "files" if n % 2 else "trading"
        goals.add(f"r{n}", f"please help me with request{n} about {kind}", [], kind=kind)
    goals.add("new", "book a flight to rome", [], kind="travel")  # new word and new kind
    assert not goals.new_word_means_new_kind()  # 1 of 21 goals with a new word: 1 of 21 overall


def test_goals_without_a_kind_and_goals_added_again_are_not_counted() -> None:
    goals = templated(kinds=2)
    before = goals.new_word_means_new_kind()
    for n in range(30):
        goals.add(f"failed{n}", f"unknownword{n}")  # no kind: a task that was not resolved
    goals.add("freeze", "freeze metal0", [], kind="freeze")  # the same goal again
    assert goals.new_word_means_new_kind() == before is True
