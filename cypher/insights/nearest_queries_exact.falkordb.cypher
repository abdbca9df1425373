// eq. 2: the space's recorded queries closest to a task (but those in $exclude), among the
// tasks of its structure when it has one ($task_key; a query stored before keys is unknown).
// Exact scan of the space (nearest.py, when the shared index held too few of it).
UNWIND $probes AS probe
WITH probe.key AS key, vecf32(probe.embedding) AS probe_vector
MATCH (q:Query {space: $space})
WHERE q.embedding IS NOT NULL AND NOT q.id IN $exclude
  AND ($task_key IS NULL OR coalesce(q.task_key, $task_key) = $task_key)
WITH key, q, 1 - vec.cosineDistance(q.embedding, probe_vector) AS similarity
ORDER BY similarity DESC, q.id
WITH key, collect({id: q.id, embedding: CASE WHEN $with_vectors THEN q.embedding END, similarity: similarity})[..$k] AS hits
RETURN key, hits
