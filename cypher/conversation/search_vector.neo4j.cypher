// Dense search: the space's turns among the shared index's candidates (nearest.py).
// Shared index, oversampled (nearest.py): per probe, how many candidates the index gave, the
// lowest index similarity among them, how many are the space's (`own`), and the hits: the
// space's candidates with the exact cosine (the index's vectors are quantised), only those
// whose index similarity lies within $rerank_margin of the k-th best of the space's. A true
// top-k turn cannot lie lower when the index is off by at most half the margin (nearest.py,
// RERANK_MARGIN), and reading 384 stored floats per candidate is most of this query's time.
// Each hit also carries its index similarity, so that nearest() sees the index's error.
UNWIND $probes AS probe
CALL db.index.vector.queryNodes('turn_embedding', $candidates, probe.embedding)
YIELD node AS t, score
WITH probe, t, score, 2 * score - 1 AS similarity
ORDER BY similarity DESC
WITH probe, count(*) AS seen, min(similarity) AS floor,
     collect(CASE WHEN t.space = $space THEN {t: t, score: score, similarity: similarity} END) AS own
WITH probe, seen, floor, own,
     CASE WHEN size(own) >= $k THEN own[$k - 1].similarity END AS kth
RETURN probe.key AS key, seen, floor, size(own) AS own,
       [c IN own WHERE kth IS NULL OR c.similarity >= kth - $rerank_margin |
        {id: c.t.id, session: c.t.session, seq: c.t.seq, speaker: c.t.speaker, text: c.t.text,
         time: c.t.time, index_similarity: c.similarity,
         similarity: 2 * vector.similarity.cosine(c.t.embedding, probe.embedding) - 1}] AS hits
