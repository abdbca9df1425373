"""Node matching between two directed, edge-labelled action decision graphs (§4.2.1).

The matching minimises a graph edit cost: deleting, inserting or relabelling a node or an edge.
Node keys are unique within a graph (node reuse, §4.1.2) and INIT always matches INIT.

- Exact (both graphs with at most `EXACT_LIMIT` nodes): depth-first branch and bound over every
  node matching, pruned by a lower bound and seeded with the approximate solution.
  Exact graph edit distance is NP-hard; the search is only affordable on small graphs.
- Approximate (larger graphs): bipartite graph edit distance (Riesen & Bunke, "Approximate
  graph edit distance computation by means of bipartite graph matching", 2009). Equal actions
  are paired first, since an equal key is the only partner that costs nothing; the remaining
  nodes are assigned by the Hungarian method on a cost matrix that adds to each node's relabel
  cost the cost of matching its incident edges (edges to already paired nodes compared exactly,
  the others by label, half-counted); newly paired nodes then anchor another round, and a last
  pass un-pairs any relabelling that does not lower the true cost. O(n³) in the number of
  unpaired nodes instead of exponential; the paper uses learned or optimal-transport matchers
  (GEDIOT, FGW) that need a trained model, which we cannot ship.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from .lap import solve_assignment
from .models import DecisionGraph, Matching

EXACT_LIMIT = 8
"""Largest graph (nodes, INIT included) matched by exhaustive search."""
_EPS = 1e-9


@dataclass(frozen=True)
class EditCosts:
    """Unit costs of edit operations. A node relabel costs more than deleting one action and
    inserting another (2), so two actions are paired as "replace X by Y" only where the edges
    around them line up; unrelated differences come out as deletions and insertions."""

    node_delete: float = 1.0
    node_insert: float = 1.0
    node_relabel: float = 2.5
    edge_delete: float = 1.0
    edge_insert: float = 1.0
    edge_relabel: float = 1.0

    def edge_pair(self, left: set[str], right: set[str]) -> float:
        """Edges between one matched pair of node pairs: equal labels are free, the rest are
        relabelled where that is cheaper than a deletion plus an insertion."""
        only_left = len(left - right)
        only_right = len(right - left)
        relabels = (
            min(only_left, only_right)
            if self.edge_relabel < self.edge_delete + self.edge_insert
            else 0
        )
        return (
            relabels * self.edge_relabel
            + (only_left - relabels) * self.edge_delete
            + (only_right - relabels) * self.edge_insert
        )


DEFAULT_COSTS = EditCosts()
Mapping = list[int | None]


def edit_cost(
    g1: DecisionGraph, g2: DecisionGraph, mapping: Mapping, costs: EditCosts = DEFAULT_COSTS
) -> float:
    """The cost of turning g1 into g2 under `mapping` (g1 node → g2 node or None)."""
    used = {v for v in mapping if v is not None}
    total = 0.0
    for u, v in enumerate(mapping):
        if v is None:
            total += costs.node_delete
        elif g1.nodes[u].key != g2.nodes[v].key:
            total += costs.node_relabel
    total += costs.node_insert * (len(g2.nodes) - len(used))
    e1, e2 = g1.edge_map(), g2.edge_map()
    for (a, b), labels in e1.items():
        ma, mb = mapping[a], mapping[b]
        if ma is None or mb is None:
            total += costs.edge_delete * len(labels)
        else:
            total += costs.edge_pair(labels, e2.get((ma, mb), set()))
    covered = {(mapping[a], mapping[b]) for a, b in e1 if mapping[a] is not None}
    for pair, labels in e2.items():
        if pair not in covered:
            total += costs.edge_insert * len(labels)
    return total


def match_graphs(
    g1: DecisionGraph,
    g2: DecisionGraph,
    *,
    costs: EditCosts = DEFAULT_COSTS,
    exact_limit: int = EXACT_LIMIT,
) -> Matching:
    """The node matching of g1 (exploration) onto g2 (expert) used by Algorithms 2 and 3."""
    mapping = approximate_matching(g1, g2, costs)
    cost = edit_cost(g1, g2, mapping, costs)
    if max(len(g1.nodes), len(g2.nodes)) <= exact_limit:
        mapping, cost = exact_matching(g1, g2, costs, upper=(cost, mapping))
        return Matching(tuple(mapping), cost, "exact")
    return Matching(tuple(mapping), cost, "approximate")


# --- exact -------------------------------------------------------------------------------


def exact_matching(
    g1: DecisionGraph,
    g2: DecisionGraph,
    costs: EditCosts = DEFAULT_COSTS,
    *,
    upper: tuple[float, Mapping] | None = None,
) -> tuple[Mapping, float]:
    """Minimum-cost matching by branch and bound; `upper` is a known solution to beat."""
    e1, e2 = g1.edge_map(), g2.edge_map()
    n1, n2 = len(g1.nodes), len(g2.nodes)
    keys1 = [n.key for n in g1.nodes]
    keys2 = [n.key for n in g2.nodes]
    best_cost, best_map = upper if upper is not None else (math.inf, [None] * n1)
    best_map = list(best_map)
    mapping: Mapping = [None] * n1
    used = [False] * n2
    edges1_of = [[pair for pair in e1 if u in pair] for u in range(n1)]

    def bound(i: int, so_far: float) -> float:
        rest1 = keys1[i:]
        rest2 = [keys2[v] for v in range(n2) if not used[v]]
        common = len(set(rest1) & set(rest2))
        low = math.inf
        top = min(len(rest1), len(rest2))
        for m in {0, min(common, top), top}:
            low = min(
                low,
                costs.node_delete * (len(rest1) - m)
                + costs.node_insert * (len(rest2) - m)
                + costs.node_relabel * max(0, m - common),
            )
        open1 = sum(len(ls) for (a, b), ls in e1.items() if a >= i or b >= i)
        images = {v for v in mapping[:i] if v is not None}
        open2 = sum(len(ls) for (a, b), ls in e2.items() if a not in images or b not in images)
        low += abs(open1 - open2) * min(costs.edge_delete, costs.edge_insert)
        return so_far + low

    def place(u: int, v: int | None) -> float:
        """Cost added by deciding u → v, given u's predecessors are decided."""
        added = costs.node_delete if v is None else 0.0
        if v is not None and keys1[u] != keys2[v]:
            added += costs.node_relabel
        for a, b in edges1_of[u]:
            if max(a, b) != u:
                continue  # the other end is not decided yet
            ma, mb = mapping[a], mapping[b]
            if ma is None or mb is None:
                added += costs.edge_delete * len(e1[(a, b)])
            else:
                added += costs.edge_pair(e1[(a, b)], e2.get((ma, mb), set()))
        if v is not None:
            # expert edges between v and images of decided nodes with no g1 edge behind them
            for w in range(u + 1):
                mw = mapping[w]
                if mw is None:
                    continue
                for pair in {(v, mw), (mw, v)}:
                    source = (u, w) if pair == (v, mw) else (w, u)
                    if pair in e2 and source not in e1:
                        added += costs.edge_insert * len(e2[pair])
        return added

    def finish(so_far: float) -> float:
        images = {v for v in mapping if v is not None}
        total = so_far + costs.node_insert * (n2 - len(images))
        for (a, b), labels in e2.items():
            if a not in images or b not in images:
                total += costs.edge_insert * len(labels)
        return total

    def search(i: int, so_far: float) -> None:
        nonlocal best_cost, best_map
        if i == n1:
            total = finish(so_far)
            if total < best_cost - _EPS:
                best_cost, best_map = total, list(mapping)
            return
        if bound(i, so_far) >= best_cost - _EPS:
            return
        if i == 0:
            options: list[int | None] = [0]  # INIT matches INIT
        else:
            free = [v for v in range(1, n2) if not used[v]]
            free.sort(key=lambda v: (keys2[v] != keys1[i], v))
            options = [*free, None]
        for v in options:
            mapping[i] = v
            if v is not None:
                used[v] = True
            search(i + 1, so_far + place(i, v))
            if v is not None:
                used[v] = False
            mapping[i] = None

    search(0, 0.0)
    return best_map, best_cost


# --- approximate -------------------------------------------------------------------------


def approximate_matching(
    g1: DecisionGraph, g2: DecisionGraph, costs: EditCosts = DEFAULT_COSTS
) -> Mapping:
    """Bipartite GED with equal-key anchors, repeated assignment rounds and a pruning pass."""
    mapping: Mapping = [None] * len(g1.nodes)
    by_key = {n.key: n.label for n in g2.nodes}
    for node in g1.nodes:
        mapping[node.label] = by_key.get(node.key)
    relabelled: list[int] = []
    for _ in range(5):
        pairs = _assignment_round(g1, g2, mapping, costs)
        if not pairs:
            break
        for u, v in pairs:
            mapping[u] = v
            relabelled.append(u)
    current = edit_cost(g1, g2, mapping, costs)
    for u in relabelled:
        kept = mapping[u]
        mapping[u] = None
        trial = edit_cost(g1, g2, mapping, costs)
        if trial < current - _EPS:
            current = trial
        else:
            mapping[u] = kept
    return mapping


def _assignment_round(
    g1: DecisionGraph, g2: DecisionGraph, mapping: Mapping, costs: EditCosts
) -> list[tuple[int, int]]:
    images = {v: u for u, v in enumerate(mapping) if v is not None}
    free1 = [u for u, v in enumerate(mapping) if v is None]
    free2 = [v for v in range(len(g2.nodes)) if v not in images]
    if not free1 or not free2:
        return []
    desc1 = {u: _descriptors(g1, u, lambda w: mapping[w]) for u in free1}
    desc2 = {v: _descriptors(g2, v, lambda y: y if y in images else None) for v in free2}
    delete = {u: costs.node_delete + _lone_cost(desc1[u], costs.edge_delete) for u in free1}
    insert = {v: costs.node_insert + _lone_cost(desc2[v], costs.edge_insert) for v in free2}
    gains: dict[tuple[int, int], float] = {}
    for u in free1:
        for v in free2:
            sub = costs.node_relabel + _descriptor_cost(desc1[u], desc2[v], costs)
            gain = delete[u] + insert[v] - sub
            if gain > _EPS:
                gains[(u, v)] = gain
    pairs: list[tuple[int, int]] = []
    for rows, cols in _components(gains):
        size = max(len(rows), len(cols))
        matrix = [
            [
                -gains.get((rows[r], cols[c]), 0.0) if r < len(rows) and c < len(cols) else 0.0
                for c in range(size)
            ]
            for r in range(size)
        ]
        for r, c in enumerate(solve_assignment(matrix)):
            if r < len(rows) and c < len(cols) and (rows[r], cols[c]) in gains:
                pairs.append((rows[r], cols[c]))
    return pairs


# An incident edge seen from a node: (direction, other end's g2 node or None if unknown, label).
Descriptor = tuple[str, int | None, str]


def _descriptors(
    g: DecisionGraph, node: int, resolve: Callable[[int], int | None]
) -> list[Descriptor]:
    out: list[Descriptor] = []
    for e in g.edges:
        if e.source == node and e.target == node:
            out.append(("self", None, e.state))
        elif e.source == node:
            out.append(("out", resolve(e.target), e.state))
        elif e.target == node:
            out.append(("in", resolve(e.source), e.state))
    return out


def _lone_cost(desc: list[Descriptor], unit: float) -> float:
    """Deleting (or inserting) a node takes its edges along; edges to unpaired nodes are
    shared with that node's own estimate, so they count half."""
    return sum(unit if d[0] == "self" or d[1] is not None else unit / 2 for d in desc)


def _descriptor_cost(a: list[Descriptor], b: list[Descriptor], costs: EditCosts) -> float:
    total = 0.0
    known_a: dict[tuple[str, int | None], set[str]] = {}
    known_b: dict[tuple[str, int | None], set[str]] = {}
    loose_a: dict[str, Counter[str]] = {}
    loose_b: dict[str, Counter[str]] = {}
    for desc, known, loose in ((a, known_a, loose_a), (b, known_b, loose_b)):
        for direction, other, label in desc:
            if direction == "self" or other is not None:
                known.setdefault((direction, other), set()).add(label)
            else:
                loose.setdefault(direction, Counter())[label] += 1
    for group in known_a.keys() | known_b.keys():
        total += costs.edge_pair(known_a.get(group, set()), known_b.get(group, set()))
    for direction in loose_a.keys() | loose_b.keys():
        left = loose_a.get(direction, Counter())
        right = loose_b.get(direction, Counter())
        shared = sum((left & right).values())
        rest_left = sum(left.values()) - shared
        rest_right = sum(right.values()) - shared
        relabels = min(rest_left, rest_right)
        total += 0.5 * (
            relabels * costs.edge_relabel
            + (rest_left - relabels) * costs.edge_delete
            + (rest_right - relabels) * costs.edge_insert
        )
    return total


def _components(gains: dict[tuple[int, int], float]) -> list[tuple[list[int], list[int]]]:
    """Connected components of the bipartite graph of worthwhile pairs: each is solved alone."""
    parent: dict[tuple[str, int], tuple[str, int]] = {}

    def find(x: tuple[str, int]) -> tuple[str, int]:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for u, v in gains:
        ru, rv = find(("r", u)), find(("c", v))
        if ru != rv:
            parent[ru] = rv
    groups: dict[tuple[str, int], tuple[list[int], list[int]]] = {}
    for node in list(parent):
        rows, cols = groups.setdefault(find(node), ([], []))
        (rows if node[0] == "r" else cols).append(node[1])
    return [(sorted(rows), sorted(cols)) for rows, cols in groups.values()]
