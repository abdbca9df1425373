// Dense search: the space's turns among the shared index's candidates (nearest.py).
// Shared index, oversampled (nearest.py): per probe, how many candidates the index gave, the
// lowest index similarity among them, how many are the space's (`own`), and the hits: of the
// space's candidates whose index similarity lies within $rerank_margin of the k-th best of
// the space's, the $k best by exact cosine (the index's vectors are quantised). A true top-k
// turn cannot lie lower when the index is off by at most half the margin (nearest.py,
// RERANK_MARGIN), and reading 384 stored floats per candidate is most of this query's time.
// Only the $k best are projected and sent (most of the client's time is decoding hits);
// `index_error`, the furthest an index similarity among those rescored lay from its exact
// cosine, lets nearest() see whether the index is as close as the margin assumes.
UNWIND $probes AS probe
CALL db.index.vector.queryNodes('turn_embedding', $candidates, probe.embedding)
YIELD node AS t, score
WITH probe, t, score, 2 * score - 1 AS similarity
ORDER BY similarity DESC
WITH probe, count(*) AS seen, min(similarity) AS floor,
     collect(CASE WHEN t.space = $space THEN {t: t, score: score, similarity: similarity} END) AS own
WITH probe, seen, floor, own,
     CASE WHEN size(own) >= $k THEN own[$k - 1].similarity END AS kth
WITH probe, seen, floor, size(own) AS own,
     [c IN own WHERE kth IS NULL OR c.similarity >= kth - $rerank_margin |
      {t: c.t, index_similarity: c.similarity,
       similarity: 2 * vector.similarity.cosine(c.t.embedding, probe.embedding) - 1}] AS read
CALL (read) {
  UNWIND read AS r
  WITH r
  ORDER BY r.similarity DESC, r.t.id
  LIMIT $k
  RETURN collect({id: r.t.id, session: r.t.session, seq: r.t.seq, speaker: r.t.speaker,
                  text: r.t.text, time: r.t.time, similarity: r.similarity}) AS hits
}
RETURN probe.key AS key, seen, floor, own,
       reduce(worst = 0.0, r IN read | CASE WHEN abs(r.similarity - r.index_similarity) > worst
                                            THEN abs(r.similarity - r.index_similarity) ELSE worst END)
         AS index_error, hits
