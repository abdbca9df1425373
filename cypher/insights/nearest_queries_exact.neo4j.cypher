// eq. 2: the space's recorded queries closest to a task (but those in $exclude), among the
// tasks of its structure when it has one ($task_key; a query stored before keys is unknown).
// Exact scan of the space (nearest.py, when the shared index held too few of it).
// Per probe, the k best are kept while scanning (a top-k, not a sort of the whole space) and
// only they are projected: 1.3-1.6x faster at 3,000 turns (benchmarks/engine_reads.py).
UNWIND $probes AS probe
CALL (probe) {
  MATCH (q:Query {space: $space})
  WHERE q.embedding IS NOT NULL AND NOT q.id IN $exclude
    AND ($task_key IS NULL OR coalesce(q.task_key, $task_key) = $task_key)
  WITH q, 2 * vector.similarity.cosine(q.embedding, probe.embedding) - 1 AS similarity
  ORDER BY similarity DESC, q.id
  LIMIT $k
  RETURN collect({id: q.id, embedding: CASE WHEN $with_vectors THEN q.embedding END, similarity: similarity}) AS hits
}
RETURN probe.key AS key, hits
