import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem_neo4j.experience.lap import solve_assignment


def brute_force(cost: list[list[float]]) -> float:
    n = len(cost)
    return min(sum(cost[r][p[r]] for r in range(n)) for p in itertools.permutations(range(n)))


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda n: st.lists(
            st.lists(st.integers(-20, 20).map(float), min_size=n, max_size=n),
            min_size=n,
            max_size=n,
        )
    )
)
def test_the_assignment_is_optimal(cost: list[list[float]]) -> None:
    assignment = solve_assignment(cost)
    assert sorted(assignment) == list(range(len(cost)))
    assert sum(cost[r][c] for r, c in enumerate(assignment)) == brute_force(cost)


def test_a_known_case() -> None:
    cost = [[4.0, 1.0, 3.0], [2.0, 0.0, 5.0], [3.0, 2.0, 2.0]]
    assert solve_assignment(cost) == [1, 0, 2]
    assert solve_assignment([]) == []


def test_non_square_is_refused() -> None:
    with pytest.raises(ValueError, match="square"):
        solve_assignment([[1.0, 2.0]])
