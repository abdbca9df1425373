// Dense search: the space's turns among the shared index's candidates (nearest.py).
// Exact scan of the space (nearest.py, when the shared index held too few of it).
// Per probe, the k best are kept while scanning (a top-k, not a sort of the whole space) and
// only they are projected: 1.3-1.6x faster at 3,000 turns (benchmarks/engine_reads.py).
UNWIND $probes AS probe
CALL (probe) {
  MATCH (t:Turn {space: $space})
  WHERE t.embedding IS NOT NULL
  WITH t, 2 * vector.similarity.cosine(t.embedding, probe.embedding) - 1 AS similarity
  ORDER BY similarity DESC, t.id
  LIMIT $k
  RETURN collect({id: t.id, session: t.session, seq: t.seq, speaker: t.speaker, text: t.text, time: t.time, similarity: similarity}) AS hits
}
RETURN probe.key AS key, hits
