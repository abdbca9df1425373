"""The linear assignment problem, solved by the Hungarian method in its shortest augmenting
path form (Kuhn 1955; Munkres 1957; the O(n³) row-by-row variant with dual potentials).

Written here because scipy is not a dependency; our matrices are small (the nodes left once
equal actions are paired), so plain Python is fast enough.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def solve_assignment(cost: Sequence[Sequence[float]]) -> list[int]:
    """For a square matrix, the column assigned to each row at minimum total cost."""
    n = len(cost)
    if n == 0:
        return []
    if any(len(row) != n for row in cost):
        raise ValueError("the cost matrix must be square")
    # 1-based arrays; column 0 is a virtual start column for each augmentation.
    row_pot = [0.0] * (n + 1)
    col_pot = [0.0] * (n + 1)
    row_of_col = [0] * (n + 1)
    previous = [0] * (n + 1)
    for row in range(1, n + 1):
        row_of_col[0] = row
        col = 0
        min_slack = [math.inf] * (n + 1)
        visited = [False] * (n + 1)
        # Grow a shortest-path tree from `row` until it reaches a free column.
        while True:
            visited[col] = True
            current_row = row_of_col[col]
            costs = cost[current_row - 1]
            pot = row_pot[current_row]
            delta = math.inf
            next_col = 0
            for j in range(1, n + 1):
                if visited[j]:
                    continue
                slack = costs[j - 1] - pot - col_pot[j]
                if slack < min_slack[j]:
                    min_slack[j] = slack
                    previous[j] = col
                if min_slack[j] < delta:
                    delta = min_slack[j]
                    next_col = j
            for j in range(n + 1):
                if visited[j]:
                    row_pot[row_of_col[j]] += delta
                    col_pot[j] -= delta
                else:
                    min_slack[j] -= delta
            col = next_col
            if row_of_col[col] == 0:
                break
        # Flip the augmenting path back to the start column.
        while col:
            prior = previous[col]
            row_of_col[col] = row_of_col[prior]
            col = prior
    assignment = [0] * n
    for j in range(1, n + 1):
        assignment[row_of_col[j] - 1] = j - 1
    return assignment
