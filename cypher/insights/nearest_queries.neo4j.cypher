// eq. 2: the space's recorded queries closest to a task (but those in $exclude), among the
// tasks of its structure when it has one ($task_key; a query stored before keys is unknown).
// Shared index, oversampled; nearest.py decides whether the candidates held enough.
UNWIND $probes AS probe
CALL db.index.vector.queryNodes('insights_query_embedding', $candidates, probe.embedding)
YIELD node, score
WITH probe, collect(node) AS found, 2 * min(score) - 1 AS floor
RETURN probe.key AS key, size(found) AS seen, floor,
       [q IN found WHERE q.space = $space AND NOT q.id IN $exclude
                   AND ($task_key IS NULL OR coalesce(q.task_key, $task_key) = $task_key) |
        {id: q.id, embedding: CASE WHEN $with_vectors THEN q.embedding END,
         similarity: 2 * vector.similarity.cosine(q.embedding, probe.embedding) - 1}] AS hits
