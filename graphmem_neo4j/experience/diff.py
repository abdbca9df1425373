"""Common subgraph (Algorithm 2) and graph edit path (Algorithm 3) of an exploration graph
against an expert graph under a node matching (§4.2.1). The paper's appendix is not in our
copy; both are re-derived from the section's description."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from .matching import DEFAULT_COSTS, EditCosts, Mapping, match_graphs
from .models import CommonEdge, DecisionEdge, DecisionGraph, EditOp, GraphDiff, Matching


def diff_graphs(
    exploration: DecisionGraph, expert: DecisionGraph, *, costs: EditCosts = DEFAULT_COSTS
) -> GraphDiff:
    """Match the graphs, then read off what they share and how to edit one into the other."""
    matching = match_graphs(exploration, expert, costs=costs)
    return diff_with(exploration, expert, matching, costs=costs)


def diff_with(
    exploration: DecisionGraph,
    expert: DecisionGraph,
    matching: Matching,
    *,
    costs: EditCosts = DEFAULT_COSTS,
) -> GraphDiff:
    mapping = list(matching.mapping)
    return GraphDiff(
        common_edges=tuple(common_subgraph(exploration, expert, mapping)),
        edit_path=tuple(edit_path(exploration, expert, mapping, costs=costs)),
        matching=matching,
    )


def _edges_by_pair(g: DecisionGraph) -> dict[tuple[int, int], list[DecisionEdge]]:
    out: dict[tuple[int, int], list[DecisionEdge]] = {}
    for e in sorted(g.edges, key=lambda e: e.steps[0]):
        out.setdefault((e.source, e.target), []).append(e)
    return out


def _context(g: DecisionGraph) -> dict[int, str]:
    """The observation each action was first taken after."""
    first: dict[int, DecisionEdge] = {}
    for e in g.edges:
        if e.target not in first or e.steps[0] < first[e.target].steps[0]:
            first[e.target] = e
    return {node: e.state for node, e in first.items()}


def common_subgraph(g1: DecisionGraph, g2: DecisionGraph, mapping: Mapping) -> list[CommonEdge]:
    """Algorithm 2: edges present in both graphs with identical labels under the matching (the
    same observation between the same actions), in the expert's step order: the workflow the
    exploration got right."""
    e2 = {(e.source, e.target, e.state): e for e in g2.edges}
    found: list[CommonEdge] = []
    for e in g1.edges:
        ma, mb = mapping[e.source], mapping[e.target]
        if ma is None or mb is None:
            continue
        if g1.nodes[e.source].key != g2.nodes[ma].key or g1.nodes[e.target].key != g2.nodes[mb].key:
            continue
        twin = e2.get((ma, mb, e.state))
        if twin is not None:
            found.append(
                CommonEdge(g2.nodes[ma].raw, g2.nodes[mb].raw, e.state, step=twin.steps[0])
            )
    return sorted(found, key=lambda c: c.step)


def edit_path(
    g1: DecisionGraph,
    g2: DecisionGraph,
    mapping: Mapping,
    *,
    costs: EditCosts = DEFAULT_COSTS,
) -> list[EditOp]:
    """Algorithm 3: the unmatched or mismatched nodes and edges as edit operations that turn g1
    into g2, in an order that can be replayed: edge deletions, node deletions, node relabels,
    node insertions, edge relabels, edge insertions (each in step order)."""
    raw1 = [n.raw for n in g1.nodes]
    raw2 = [n.raw for n in g2.nodes]
    ctx1, ctx2 = _context(g1), _context(g2)
    pairs1, pairs2 = _edges_by_pair(g1), _edges_by_pair(g2)
    relabel_edges = costs.edge_relabel < costs.edge_delete + costs.edge_insert

    deleted_edges: list[tuple[int, EditOp]] = []
    relabelled_edges: list[tuple[int, EditOp]] = []
    inserted_edges: list[tuple[int, EditOp]] = []
    covered: set[tuple[int, int]] = set()
    for (a, b), edges in pairs1.items():
        ma, mb = mapping[a], mapping[b]
        if ma is None or mb is None:
            for e in edges:
                deleted_edges.append((e.steps[0], _delete_edge(raw1, e)))
            continue
        covered.add((ma, mb))
        theirs = pairs2.get((ma, mb), [])
        their_states = {e.state for e in theirs}
        my_states = {e.state for e in edges}
        only_mine = [e for e in edges if e.state not in their_states]
        only_theirs = [e for e in theirs if e.state not in my_states]
        count = min(len(only_mine), len(only_theirs)) if relabel_edges else 0
        for old, new in zip(only_mine[:count], only_theirs[:count], strict=True):
            op = EditOp(
                "relabel_edge",
                source=raw2[ma],
                target=raw2[mb],
                observation=old.state,
                new_observation=new.state,
            )
            relabelled_edges.append((new.steps[0], op))
        for e in only_mine[count:]:
            deleted_edges.append((e.steps[0], _delete_edge(raw1, e)))
        for e in only_theirs[count:]:
            inserted_edges.append((e.steps[0], _insert_edge(raw2, e)))
    for pair, edges in pairs2.items():
        if pair not in covered:
            inserted_edges.extend((e.steps[0], _insert_edge(raw2, e)) for e in edges)

    images = {v for v in mapping if v is not None}
    deleted_nodes = [
        EditOp("delete_node", action=raw1[u], observation=ctx1.get(u))
        for u, v in enumerate(mapping)
        if v is None
    ]
    relabelled_nodes = [
        EditOp("relabel_node", action=raw1[u], new_action=raw2[v], observation=ctx1.get(u))
        for u, v in enumerate(mapping)
        if v is not None and g1.nodes[u].key != g2.nodes[v].key
    ]
    inserted_nodes = [
        EditOp("insert_node", action=raw2[v], observation=ctx2.get(v))
        for v in range(len(g2.nodes))
        if v not in images
    ]
    return [
        *_in_order(deleted_edges),
        *deleted_nodes,
        *relabelled_nodes,
        *inserted_nodes,
        *_in_order(relabelled_edges),
        *_in_order(inserted_edges),
    ]


def _delete_edge(raw: list[str], e: DecisionEdge) -> EditOp:
    return EditOp("delete_edge", source=raw[e.source], target=raw[e.target], observation=e.state)


def _insert_edge(raw: list[str], e: DecisionEdge) -> EditOp:
    return EditOp("insert_edge", source=raw[e.source], target=raw[e.target], observation=e.state)


def _in_order(items: list[tuple[int, EditOp]]) -> list[EditOp]:
    return [op for _, op in sorted(items, key=lambda item: item[0])]


def path_cost(ops: Iterable[EditOp], costs: EditCosts = DEFAULT_COSTS) -> float:
    prices = {
        "delete_node": costs.node_delete,
        "insert_node": costs.node_insert,
        "relabel_node": costs.node_relabel,
        "delete_edge": costs.edge_delete,
        "insert_edge": costs.edge_insert,
        "relabel_edge": costs.edge_relabel,
    }
    return sum(prices[op.op] for op in ops)


Shape = tuple[frozenset[str], frozenset[tuple[str, str, str]]]


def shape(g: DecisionGraph) -> Shape:
    """A graph as raw action texts and (source, target, observation) triples."""
    raw = [n.raw for n in g.nodes]
    return frozenset(raw), frozenset((raw[e.source], raw[e.target], e.state) for e in g.edges)


def apply_edit_path(g: DecisionGraph, ops: Iterable[EditOp]) -> Shape:
    """Replay an edit path on a graph; raises ValueError on an operation that does not apply.
    Relabels of nodes are applied together (one may take a text another gives up)."""
    start_nodes, start_edges = shape(g)
    nodes: set[str] = set(start_nodes)
    edges: set[tuple[str, str, str]] = set(start_edges)
    ops = list(ops)
    renames = {str(op.action): str(op.new_action) for op in ops if op.op == "relabel_node"}
    renamed = False
    for op in ops:
        source, target = str(op.source), str(op.target)
        if op.op in ("relabel_node", "insert_node", "relabel_edge", "insert_edge") and not renamed:
            nodes = {renames.get(n, n) for n in nodes}
            edges = {(renames.get(a, a), renames.get(b, b), s) for a, b, s in edges}
            renamed = True
        if op.op == "delete_edge":
            _take(edges, (source, target, str(op.observation)), op)
        elif op.op == "delete_node":
            if any(op.action in (a, b) for a, b, _ in edges):
                raise ValueError(f"{op}: the node still has edges")
            _take(nodes, str(op.action), op)
        elif op.op == "insert_node":
            nodes.add(str(op.action))
        elif op.op == "relabel_edge":
            _take(edges, (source, target, str(op.observation)), op)
            edges.add((source, target, str(op.new_observation)))
        elif op.op == "insert_edge":
            if source not in nodes or target not in nodes:
                raise ValueError(f"{op}: an end is missing")
            edges.add((source, target, str(op.observation)))
    return frozenset(nodes), frozenset(edges)


T = TypeVar("T")


def _take(items: set[T], item: T, op: EditOp) -> None:
    if item not in items:
        raise ValueError(f"{op}: {item!r} is not in the graph")
    items.remove(item)
