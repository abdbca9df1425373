// The kinds of things the space's trajectories touch: what a task text's names are.
MATCH (t:Task)
WHERE t.space = $space
UNWIND t.names AS name
RETURN DISTINCT name
ORDER BY name
