// The ADD guard: the active insight of the space closest to a text. An exact scan of the
// space, not the shared vector index: the index's nearest neighbours can all belong to other
// spaces, and a missed duplicate would be stored twice. Only insights that can serve a task
// of the text's structure ($task_key) count: those with positive evidence on such a task,
// or on a task whose structure is unknown, or without evidence.
WITH vecf32($embedding) AS text_vector
MATCH (i:Insight)
WHERE i.space = $space AND i.active = true AND i.embedding IS NOT NULL
OPTIONAL MATCH (i)-[:POSITIVE]->(p:Query)
WITH i, text_vector, collect(coalesce(p.task_key, $task_key)) AS keys, count(p) AS evidence
WHERE $task_key IS NULL OR evidence = 0 OR $task_key IN keys
WITH i, 1 - vec.cosineDistance(i.embedding, text_vector) AS similarity
RETURN i.id AS id, i.text AS text, similarity
ORDER BY similarity DESC, id
LIMIT 1
