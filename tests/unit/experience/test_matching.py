import itertools
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem_neo4j.experience.diff import (
    apply_edit_path,
    common_subgraph,
    diff_graphs,
    edit_path,
    path_cost,
    shape,
)
from graphmem_neo4j.experience.matching import (
    EXACT_LIMIT,
    EditCosts,
    Mapping,
    approximate_matching,
    edit_cost,
    exact_matching,
    match_graphs,
)
from graphmem_neo4j.experience.models import DecisionGraph

from .helpers import chain


def all_mappings(g1: DecisionGraph, g2: DecisionGraph) -> Iterator[Mapping]:
    """Every node matching with INIT on INIT: the search space of exact matching."""
    left = range(1, len(g1.nodes))
    right = list(range(1, len(g2.nodes)))
    for size in range(min(len(left), len(right)) + 1):
        for chosen in itertools.combinations(left, size):
            for images in itertools.permutations(right, size):
                mapping: Mapping = [0] + [None] * (len(g1.nodes) - 1)
                for u, v in zip(chosen, images, strict=True):
                    mapping[u] = v
                yield mapping


ACTIONS = ["go to a", "go to b", "open b", "take x from b", "put x in/on c", "use d"]
OBSERVATIONS = ["you see x.", "it is open.", "Nothing happens.", "you see nothing."]
graphs = st.lists(
    st.tuples(st.sampled_from(ACTIONS), st.sampled_from(OBSERVATIONS)), min_size=1, max_size=6
).map(lambda pairs: chain([a for a, _ in pairs], [o for _, o in pairs]))


@settings(max_examples=120, deadline=None)
@given(graphs, graphs)
def test_exact_matching_finds_the_cheapest_matching(g1: DecisionGraph, g2: DecisionGraph) -> None:
    mapping, cost = exact_matching(g1, g2)
    best = min(edit_cost(g1, g2, m) for m in all_mappings(g1, g2))
    assert cost == best
    assert edit_cost(g1, g2, mapping) == best


@settings(max_examples=120, deadline=None)
@given(graphs, graphs)
def test_the_approximation_is_valid_and_never_beats_exact(
    g1: DecisionGraph, g2: DecisionGraph
) -> None:
    mapping = approximate_matching(g1, g2)
    images = [v for v in mapping if v is not None]
    assert len(images) == len(set(images)) and mapping[0] == 0
    assert edit_cost(g1, g2, mapping) >= exact_matching(g1, g2)[1]


@settings(max_examples=150, deadline=None)
@given(graphs, graphs, st.booleans())
def test_the_edit_path_turns_one_graph_into_the_other_at_the_matching_cost(
    g1: DecisionGraph, g2: DecisionGraph, exact: bool
) -> None:
    mapping = exact_matching(g1, g2)[0] if exact else approximate_matching(g1, g2)
    path = edit_path(g1, g2, mapping)
    assert apply_edit_path(g1, path) == shape(g2)
    assert path_cost(path) == edit_cost(g1, g2, mapping)


@settings(max_examples=60, deadline=None)
@given(graphs)
def test_a_graph_matches_itself_at_no_cost(g: DecisionGraph) -> None:
    result = diff_graphs(g, g)
    assert result.cost == 0 and result.edit_path == ()
    assert {(e.source, e.target, e.observation) for e in result.common_edges} == shape(g)[1]


def test_a_replaced_action_is_one_relabel() -> None:
    expert = chain(["go to a", "take x from a", "go to c", "put x in/on c"])
    tried = chain(
        ["go to a", "take x from b", "go to c", "put x in/on c"],
        ["after go to a", "after take x from a", "after go to c", "after put x in/on c"],
    )
    result = diff_graphs(tried, expert)
    assert [op.as_dict() for op in result.edit_path] == [
        {
            "op": "relabel_node",
            "action": "take x from b",
            "new_action": "take x from a",
            "observation": "after go to a",
        }
    ]
    # edges touching the replaced action are not common: only the untouched ones are kept
    assert [(c.source, c.target) for c in result.common_edges] == [
        ("INIT", "go to a"),
        ("go to c", "put x in/on c"),
    ]


def test_invalid_attempts_come_out_as_deletions() -> None:
    expert = chain(["go to a", "take x from a"])
    tried = chain(
        ["go to a", "open a", "take y from a", "take x from a"],
        ["after go to a", "Nothing happens.", "Nothing happens.", "after take x from a"],
    )
    ops = [(op.op, op.action or op.target) for op in diff_graphs(tried, expert).edit_path]
    assert ops == [
        ("delete_edge", "open a"),
        ("delete_edge", "take y from a"),
        ("delete_node", "open a"),
        ("delete_node", "take y from a"),
    ]


def test_unrelated_differences_are_not_paired_as_replacements() -> None:
    # "open a" fails right after "go to a"; the expert does "use d" at the very end instead.
    tried = chain(["go to a", "open a", "go to b"], ["after go to a", "Nothing happens.", "end"])
    expert = chain(["go to a", "go to b", "use d"], ["after go to a", "end", "done"])
    ops = {op.op for op in diff_graphs(tried, expert).edit_path}
    assert "relabel_node" not in ops
    assert {"delete_node", "insert_node"} <= ops


def test_a_skipped_step_is_an_insertion() -> None:
    expert = chain(["go to a", "open b", "take x from b"])
    tried = chain(["go to a", "take x from b"], ["after go to a", "after take x from b"])
    ops = diff_graphs(tried, expert).edit_path
    assert [op.action for op in ops if op.op == "insert_node"] == ["open b"]
    assert not [op for op in ops if op.op in ("delete_node", "relabel_node")]


def test_relabelled_edges_keep_their_endpoints() -> None:
    expert = chain(["go to a", "open a"], ["it is closed.", "it is open."])
    tried = chain(["go to a", "open a"], ["it is locked.", "it is open."])
    ops = [op.as_dict() for op in diff_graphs(tried, expert).edit_path]
    assert ops == [
        {
            "op": "relabel_edge",
            "source": "go to a",
            "target": "open a",
            "observation": "it is locked.",
            "new_observation": "it is closed.",
        }
    ]


def test_common_subgraph_needs_equal_actions_and_observation() -> None:
    expert = chain(["go to a", "open a", "take x from a"], ["s1", "s2", "s3"])
    tried = chain(["go to a", "open a", "take x from a"], ["s1", "other", "s3"])
    mapping: Mapping = [0, 1, 2, 3]
    common = common_subgraph(tried, expert, mapping)
    assert [(c.source, c.target, c.observation) for c in common] == [
        ("INIT", "go to a", "start"),
        ("go to a", "open a", "s1"),
    ]


def test_small_graphs_are_matched_exactly_and_large_ones_approximately() -> None:
    small = chain([f"go to shelf {i}" for i in range(EXACT_LIMIT - 1)])
    large = chain([f"go to shelf {i}" for i in range(EXACT_LIMIT + 3)])
    assert match_graphs(small, small).method == "exact"
    assert match_graphs(large, small).method == "approximate"
    assert match_graphs(large, large).cost == 0


def test_costs_are_configurable() -> None:
    expert = chain(["go to a", "take x from a"])
    tried = chain(["go to a", "take x from b"], ["after go to a", "after take x from a"])
    cheap = EditCosts(node_relabel=0.5)
    assert match_graphs(tried, expert, costs=cheap).cost == 0.5
    assert match_graphs(tried, expert).cost == 2.5
