from graphmem_neo4j.experience.graph import INIT_RAW, abstract_graph, trajectory_graph
from graphmem_neo4j.experience.models import DecisionGraph

from .helpers import run


def edges(graph: DecisionGraph) -> list[tuple[str, str, str, bool, tuple[int, ...]]]:
    raw = [n.raw for n in graph.nodes]
    return [(raw[e.source], raw[e.target], e.state, e.valid, e.steps) for e in graph.edges]


def test_a_chain_starts_at_init_with_the_initial_observation() -> None:
    g = trajectory_graph(
        run(
            ("go to desk 1", "On the desk 1, you see a pen 1."),
            ("take pen 1 from desk 1", "You pick up the pen 1."),
        )
    )
    assert [n.raw for n in g.nodes] == [INIT_RAW, "go to desk 1", "take pen 1 from desk 1"]
    assert [n.label for n in g.nodes] == [0, 1, 2]
    assert edges(g) == [
        (INIT_RAW, "go to desk 1", "start", True, (1,)),
        ("go to desk 1", "take pen 1 from desk 1", "on the desk 1, you see a pen 1.", True, (2,)),
    ]
    assert [e.label for e in g.edges] == [1, 2]


def test_a_repeated_action_reuses_its_node() -> None:
    g = trajectory_graph(
        run(
            ("go to shelf 1", "On the shelf 1, you see nothing."),
            ("go to shelf 2", "On the shelf 2, you see nothing."),
            ("go to shelf 1", "On the shelf 1, you see nothing."),
        )
    )
    assert [n.raw for n in g.nodes] == [INIT_RAW, "go to shelf 1", "go to shelf 2"]
    into_shelf_1 = [e for e in g.edges if e.target == 1]
    assert {e.state for e in into_shelf_1} == {"start", "on the shelf 2, you see nothing."}


def test_invalid_actions_hang_in_parallel_from_the_last_valid_node() -> None:
    g = trajectory_graph(
        run(
            ("go to sinkbasin 1", "On the sinkbasin 1, you see nothing."),
            ("clean mug 1 with sinkbasin 1", "Nothing happens."),
            ("take mug 1 from sinkbasin 1", "Nothing happens."),
            ("go to countertop 1", "On the countertop 1, you see a mug 1."),
        )
    )
    seen = "on the sinkbasin 1, you see nothing."
    assert edges(g)[1:] == [
        ("go to sinkbasin 1", "clean mug 1 with sinkbasin 1", seen, False, (2,)),
        ("go to sinkbasin 1", "take mug 1 from sinkbasin 1", seen, False, (3,)),
        ("go to sinkbasin 1", "go to countertop 1", seen, True, (4,)),
    ]
    # the two failed attempts and the next action share one state: one edge label
    assert len({e.label for e in g.edges[1:]}) == 1


def test_the_same_attempt_twice_is_one_edge_with_two_steps() -> None:
    g = trajectory_graph(
        run(
            ("go to desk 1", "On the desk 1."),
            ("open desk 1", "Nothing happens."),
            ("open desk 1", "Nothing happens."),
        )
    )
    assert edges(g)[-1] == ("go to desk 1", "open desk 1", "on the desk 1.", False, (2, 3))


def test_abstract_graphs_of_two_tasks_line_up() -> None:
    hot_mug = run(
        ("go to countertop 1", "On the countertop 1, you see a mug 2."),
        ("take mug 2 from countertop 1", "You pick up the mug 2 from the countertop 1."),
        ("heat mug 2 with microwave 1", "You heat the mug 2 using the microwave 1."),
        task="put a hot mug in cabinet",
    )
    hot_egg = run(
        ("go to countertop 3", "On the countertop 3, you see a egg 1, and a fork 1."),
        ("take egg 1 from countertop 3", "You pick up the egg 1 from the countertop 3."),
        ("heat egg 1 with microwave 1", "You heat the egg 1 using the microwave 1."),
        task="put a hot egg in fridge",
    )
    a, b = abstract_graph(hot_mug), abstract_graph(hot_egg)
    assert (
        [n.raw for n in a.nodes]
        == [n.raw for n in b.nodes]
        == [
            INIT_RAW,
            "go to countertop",
            "take <1> from countertop",
            "heat <1> with microwave",
        ]
    )
    assert [e.state for e in a.edges] == [e.state for e in b.edges]
