// Active units close to a question (anchors for a question whose subject is not named exactly).
// Shared index, oversampled: a row per candidate, a hit only where the space's (nearest.py).
UNWIND $probes AS probe
CALL db.idx.vector.queryNodes('MemoryUnit', 'embedding', $candidates, vecf32(probe.embedding))
YIELD node AS u, score
RETURN probe.key AS key, 1 - score AS similarity,
       CASE WHEN u.space = $space AND u.status = 'active' AND 1 - score >= $min_similarity
            THEN {id: u.id, subject: u.subject_key, category: u.category_key, similarity: 1 - score} END AS hit
