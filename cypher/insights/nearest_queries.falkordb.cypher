// eq. 2: the space's recorded queries closest to a task (but those in $exclude), among the
// tasks of its structure when it has one ($task_key; a query stored before keys is unknown).
// Shared index, oversampled: a row per candidate, a hit only where the space's, and a keyless
// row of the label's count from the graph's stats, the most the index can hold (nearest.py).
UNWIND $probes AS probe
CALL db.idx.vector.queryNodes('Query', 'embedding', $candidates, vecf32(probe.embedding))
YIELD node AS q, score
RETURN probe.key AS key, 1 - score AS similarity,
       CASE WHEN q.space = $space AND NOT q.id IN $exclude
                 AND ($task_key IS NULL OR coalesce(q.task_key, $task_key) = $task_key)
            THEN {id: q.id, embedding: CASE WHEN $with_vectors THEN q.embedding END, similarity: 1 - score} END AS hit,
       null AS indexed
UNION ALL
CALL db.meta.stats() YIELD labels
RETURN null AS key, null AS similarity, null AS hit, coalesce(labels['Query'], 0) AS indexed
