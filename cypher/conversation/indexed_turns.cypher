// The turns of every space in the shared turn index (a label count: constant time on both
// engines): with the space's own count, the space's share of the index (nearest.py).
MATCH (t:Turn)
RETURN count(t) AS turns
