// Vector anchors (§3.2, eq. 5): Subject nodes whose name is close to the given one.
// Shared index, oversampled: a row per candidate, a hit only where the space's, and a keyless
// row of the label's count from the graph's stats, the most the index can hold (nearest.py).
UNWIND $probes AS probe
CALL db.idx.vector.queryNodes('Subject', 'embedding', $candidates, vecf32(probe.embedding))
YIELD node AS s, score
RETURN probe.key AS key, 1 - score AS similarity,
       CASE WHEN s.space = $space AND 1 - score >= $min_similarity
            THEN {id: s.id, similarity: 1 - score} END AS hit,
       null AS indexed
UNION ALL
CALL db.meta.stats() YIELD labels
RETURN null AS key, null AS similarity, null AS hit, coalesce(labels['Subject'], 0) AS indexed
