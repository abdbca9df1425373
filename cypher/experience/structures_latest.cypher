// How many expert runs the space holds: the goal model refits only when this moves.
MATCH (r:Trajectory)
WHERE r.space = $space AND r.kind = 'expert'
RETURN count(r) AS n
