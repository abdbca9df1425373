"""Which recorded queries make a task's query set (eq. 2-4): the seeds' floor, and which of
the seeds' graph neighbours join them, on a scripted store."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphmem_neo4j.insights.models import Nearby, RetrievalParams, SimilarQuery
from graphmem_neo4j.insights.retrieval import FLOOR_MIN_GOALS, Retriever


def find_goal(kind: str, colour: str) -> str:
    return f"Find a(n) {kind}. First, focus on the thing. Then, move it to the {colour} box."


class ScriptedStore:
    """A space of find-an-animal and find-a-plant goals; the animal seed's edges lead to an
    animal and to a plant task (both edges drawn with cosine 0.95). Remembers the query set
    it is asked to rank."""

    def __init__(self, goals: int) -> None:
        things = [("frog", "red"), ("fern", "green"), ("crow", "blue"), ("moss", "red")]
        self.goals = [
            {
                "id": f"{kind}-{n}",
                "text": find_goal(kind, colour),
                "actions": [f"focus on {thing}", f"move {thing} to {colour} box"],
            }
            for n in range(goals // 2)
            for kind, (thing, colour) in (("animal", things[n % 2 * 2]), ("plant", things[1]))
        ]
        self.ranked: list[str] = []

    def read(self, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        assert params is not None
        if query == "insights/structures_latest":
            return [{"n": len(self.goals)}]
        if query == "insights/query_goals":
            return self.goals[params["skip"] :]
        if query == "insights/seed_neighbours":
            near = ["animal-1", "plant-0"]
            return [{"seed": "animal-0", "near": n, "similarity": 0.95} for n in near]
        assert query == "insights/retrieve"
        self.ranked = list(params["query_ids"])
        return []


class ScriptedParts:
    def __init__(self, store: ScriptedStore) -> None:
        self.store = store


def retriever(goals: int) -> tuple[Retriever, ScriptedStore]:
    store = ScriptedStore(goals)
    return Retriever(ScriptedParts(store)), store  # type: ignore[arg-type]


def test_a_neighbour_joins_only_while_its_goal_still_says_what_its_seeds_says() -> None:
    found, store = retriever(goals=12)
    seed = [SimilarQuery("animal-0", 1.0)]
    found.rank(seed, "s", RetrievalParams(), [], None, learnt=True)
    # the thing and the colour are argument words, and the rest of the goal every goal says:
    # the animal goals are alike (fused 0.5·0.95 + 0.5·1), the plant goal shares no word that
    # weighs (0.5·0.95 + 0.5·0)
    assert store.ranked == ["animal-0", "animal-1"]
    found.rank(seed, "s", RetrievalParams(), [], None, learnt=False)
    assert store.ranked == ["animal-0", "animal-1", "plant-0"]  # a kind told: edges stand
    found.rank(seed, "s", RetrievalParams(edge_min_similarity=0.45), [], None, learnt=True)
    assert store.ranked == ["animal-0", "animal-1", "plant-0"]


def test_seeds_are_floored_by_the_fused_similarity_once_word_weights_are_learnt() -> None:
    nearby = [Nearby("a", 0.9, 0.2), Nearby("b", 0.88, 0.6), Nearby("c", 0.2, 0.9)]
    params = RetrievalParams(min_similarity=0.3, seed_margin=1.0)
    learnt, _ = retriever(goals=FLOOR_MIN_GOALS)
    goal = find_goal("animal", "red")  # no word the space's goals lack
    assert [q.id for q in learnt.seeds(nearby, "s", params, goal)] == ["a", "b"]
    # too few goals to weigh words by: the cosine decides
    few, _ = retriever(goals=FLOOR_MIN_GOALS - 2)
    assert [q.id for q in few.seeds(nearby, "s", params, goal)] == ["b", "c"]
    # no goal text (a lookup by vector alone), or the cosine alone: no floor
    assert [q.id for q in learnt.seeds(nearby, "s", params, None)] == ["a", "b", "c"]
    cosine = RetrievalParams(min_similarity=0.3, seed_margin=1.0, lexical_weight=0.0)
    assert [q.id for q in few.seeds(nearby, "s", cosine, goal)] == ["a", "b", "c"]
    margin = RetrievalParams(min_similarity=0.3, seed_margin=0.05)
    assert [q.id for q in learnt.seeds(nearby, "s", margin, goal)] == ["a", "b"]
    assert learnt.seeds(nearby, "s", RetrievalParams(min_similarity=0.95), goal) == []
    # a word no goal of the space has, where nothing says new words are free wording
    assert [q.id for q in learnt.seeds(nearby, "s", params, "a goal")] == ["a"]


def test_a_seed_of_a_tight_group_stands_only_when_the_task_is_about_as_close() -> None:
    found, store = retriever(goals=12)
    # animal-0's standing edge (to animal-1) has fused 0.5·0.95 + 0.5·1 = 0.975: a task must be
    # within seed_margin (0.05) of that to take animal-0 as a seed; plant-1 has no edge
    near = [SimilarQuery("animal-0", 0.93), SimilarQuery("plant-1", 0.9)]
    kept = found.rank(near, "s", RetrievalParams(), [], None, learnt=True)
    assert store.ranked == ["animal-0", "plant-1", "animal-1"]
    assert [s.id for s in kept.queries] == ["animal-0", "plant-1"]
    far = [SimilarQuery("animal-0", 0.92), SimilarQuery("plant-1", 0.9)]
    store.ranked = []
    dropped = found.rank(far, "s", RetrievalParams(), [], None, learnt=True)
    assert store.ranked == ["plant-1"]
    assert [s.id for s in dropped.queries] == ["plant-1"]
    # alone, the far seed leaves the task nothing
    store.ranked = ["untouched"]
    assert found.rank(far[:1], "s", RetrievalParams(), [], None, learnt=True).queries == ()
    assert store.ranked == ["untouched"]
    # a kind told (task_type, domain pack): groups are not checked
    found.rank(far, "s", RetrievalParams(), [], None, learnt=False)
    assert store.ranked == ["animal-0", "plant-1", "animal-1", "plant-0"]
    # a wider margin lets the farther task in
    found.rank(far, "s", RetrievalParams(seed_margin=0.1), [], None, learnt=True)
    assert store.ranked == ["animal-0", "plant-1", "animal-1"]


class GoalsStore:
    """A space's recorded goals only: MIN_GOALS "melt X" goals, a goal that a new word
    ("freeze") made a new kind, and two more "melt X" goals."""

    def __init__(self) -> None:
        metals = [f"metal{n}" for n in range(FLOOR_MIN_GOALS)]
        self.goals: list[dict[str, Any]] = [
            {"id": f"m{n}", "text": f"melt {m}", "actions": [f"heat {m}"], "kind": "heat"}
            for n, m in enumerate(metals)
        ]
        self.goals.append(
            {"id": "f", "text": "freeze metal0", "actions": ["cool metal0"], "kind": "cool"}
        )
        self.goals += [
            {"id": f"again{n}", "text": f"melt {m}", "actions": [], "kind": "heat"}
            for n, m in enumerate(metals[:2])
        ]

    def read(self, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        assert params is not None
        if query == "insights/structures_latest":
            return [{"n": len(self.goals)}]
        assert query == "insights/query_goals"
        return self.goals[params["skip"] :]


def test_a_new_word_holds_seeds_to_the_edge_threshold_where_it_has_meant_a_new_kind() -> None:
    store = GoalsStore()
    found = Retriever(ScriptedParts(store))  # type: ignore[arg-type]
    nearby = [Nearby("close", 0.95, 0.9), Nearby("near", 0.7, 0.9)]
    params = RetrievalParams(min_similarity=0.3, seed_margin=1.0, edge_min_similarity=0.9)
    assert [q.id for q in found.seeds(nearby, "s", params, "boil metal3")] == ["close"]
    assert [q.id for q in found.seeds(nearby, "s", params, "melt metal3")] == ["close", "near"]
    # where goals with new words have not been new kinds, a new word changes nothing
    store.goals[FLOOR_MIN_GOALS]["kind"] = "heat"
    fresh = Retriever(ScriptedParts(store))  # type: ignore[arg-type]
    assert [q.id for q in fresh.seeds(nearby, "s", params, "boil metal3")] == ["close", "near"]
