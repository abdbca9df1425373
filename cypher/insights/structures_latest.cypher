// How many tasks the space has recorded: the goal model refits only when this moves.
MATCH (q:Query)
WHERE q.space = $space AND q.recorded_at IS NOT NULL
RETURN count(q) AS n
