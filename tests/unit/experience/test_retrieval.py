import math

from graphmem_neo4j.experience.models import RetrievedTask
from graphmem_neo4j.experience.retrieval import (
    combine,
    embedding_texts,
    rank_edges,
    render_guidance,
)


def test_embedding_texts_are_the_task_and_its_skeleton() -> None:
    assert embedding_texts("Put a hot Mug in coffeemachine.", {"mug", "coffeemachine"}) == (
        "put a hot mug in coffeemachine",
        "put hot something something",
    )
    # nothing left once stop words go: the text stands in for its skeleton
    assert embedding_texts("the it", set()) == ("the it", "the it")


def test_combined_vectors_are_unit_length() -> None:
    v = combine([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    assert math.isclose(math.sqrt(sum(x * x for x in v)), 1.0)
    assert math.isclose(v[0], v[1])
    assert combine([1.0, 0.0], [-1.0, 0.0]) == [1.0, 0.0]


def row(source: str, target: str, similarity: float) -> dict[str, object]:
    return {
        "source": source,
        "target": target,
        "source_text": source,
        "target_text": target,
        "similarity": similarity,
        "insight": f"{source}-{target}",
        "workflow": ["go to <1>"],
    }


def test_edges_rank_by_task_score_times_similarity_once_per_pair() -> None:
    scores = {"a": 0.9, "b": 0.5}
    rows = [row("a", "x", 0.6), row("b", "y", 0.99), row("x", "a", 0.7), row("z", "q", 1.0)]
    ranked = rank_edges(scores, rows, 5)
    assert [(e.source, e.target) for e in ranked] == [("x", "a"), ("b", "y")]
    assert math.isclose(ranked[0].score, 0.9 * 0.7)
    assert rank_edges(scores, rows, 1)[0].insight == "x-a"
    assert rank_edges(scores, rows, 0) == []


def test_guidance_lists_tasks_insights_and_shared_workflows() -> None:
    tasks = [RetrievedTask("t1", "put a hot mug in cabinet", 0.91, ("Heat it first.",), (), 2)]
    edges = rank_edges({"t1": 0.91}, [row("t1", "t2", 0.8)], 3)
    text = render_guidance("put a hot cup in cabinet", tasks, edges, {"cup": "<1>"})
    assert text.splitlines() == [
        "Experience from tasks similar to: put a hot cup in cabinet",
        "1. put a hot mug in cabinet (similarity 0.91)",
        "   - Heat it first.",
        "Workflows shared by similar tasks (<1>, <2>, … stand for the things each task names, "
        "in order; in your task <1> = cup):",
        "- t1-t2",
    ]
    assert render_guidance("x", [], [], {}) == "No experience stored for tasks like this one yet."
