// Active units close to a question (anchors for a question whose subject is not named exactly).
// Shared index, oversampled: a row per candidate, a hit only where the space's, and a keyless
// row of the label's count from the graph's stats, the most the index can hold (nearest.py).
UNWIND $probes AS probe
CALL db.idx.vector.queryNodes('MemoryUnit', 'embedding', $candidates, vecf32(probe.embedding))
YIELD node AS u, score
RETURN probe.key AS key, 1 - score AS similarity,
       CASE WHEN u.space = $space AND u.status = 'active' AND 1 - score >= $min_similarity
            THEN {id: u.id, subject: u.subject_key, category: u.category_key, similarity: 1 - score} END AS hit,
       null AS indexed
UNION ALL
CALL db.meta.stats() YIELD labels
RETURN null AS key, null AS similarity, null AS hit, coalesce(labels['MemoryUnit'], 0) AS indexed
