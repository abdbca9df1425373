// eq. 2: the space's recorded queries closest to a task (but those in $exclude), among the
// tasks of its structure when it has one ($task_key; a query stored before keys is unknown).
// Shared index, oversampled; nearest.py decides whether the candidates held enough.
UNWIND $probes AS probe
CALL db.idx.vector.queryNodes('Query', 'embedding', $candidates, vecf32(probe.embedding))
YIELD node, score
WITH probe, collect(node) AS found, 1 - max(score) AS floor
RETURN probe.key AS key, size(found) AS seen, floor,
       [q IN found WHERE q.space = $space AND NOT q.id IN $exclude
                   AND ($task_key IS NULL OR coalesce(q.task_key, $task_key) = $task_key) |
        {id: q.id, embedding: CASE WHEN $with_vectors THEN q.embedding END,
         similarity: 1 - vec.cosineDistance(q.embedding, vecf32(probe.embedding))}] AS hits
