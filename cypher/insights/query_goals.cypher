// The goals of a space's recorded tasks, by id, with their actions, in the order they were
// recorded, from the $skip-th on: what the space's lexical index (lexical.py) learns its word
// weights, argument words and kinds of task from (`kind`: the structure of a resolved task).
MATCH (q:Query)
WHERE q.space = $space AND q.recorded_at IS NOT NULL
WITH q
ORDER BY q.recorded_at, q.id
SKIP $skip
OPTIONAL MATCH (q)-[:HAS_INTERACTION]->(s:InteractionStep)
WHERE s.space = $space
WITH q.id AS id, q.text AS text, q.recorded_at AS at, collect(s.action) AS actions,
     CASE WHEN q.status = 'resolved' AND q.task_key <> '' THEN q.task_key END AS kind
RETURN id, text, actions, kind, at
ORDER BY at, id
