// sf mode roots (paper: top-5 entities, cosine ≥ 0.75) for each of the query's entity names.
// Exact scan of the space (nearest.py, when the shared index held too few of it).
// Per probe, the k best are kept while scanning (a top-k, not a sort of the whole space) and
// only they are projected: 1.3-1.6x faster at 3,000 turns (benchmarks/engine_reads.py).
UNWIND $probes AS probe
CALL (probe) {
  MATCH (e:Entity {space: $space})
  WHERE e.embedding IS NOT NULL
  WITH e, 2 * vector.similarity.cosine(e.embedding, probe.embedding) - 1 AS similarity
  WHERE similarity >= $min_similarity
  ORDER BY similarity DESC, e.id
  LIMIT $k
  RETURN collect({id: e.id, name: e.name, type: e.type, similarity: similarity}) AS hits
}
RETURN probe.key AS key, hits
