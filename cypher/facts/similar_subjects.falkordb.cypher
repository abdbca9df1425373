// Vector anchors (§3.2, eq. 5): Subject nodes whose name is close to the given one.
// Shared index, oversampled: a row per candidate, a hit only where the space's (nearest.py).
UNWIND $probes AS probe
CALL db.idx.vector.queryNodes('Subject', 'embedding', $candidates, vecf32(probe.embedding))
YIELD node AS s, score
RETURN probe.key AS key, 1 - score AS similarity,
       CASE WHEN s.space = $space AND 1 - score >= $min_similarity
            THEN {id: s.id, similarity: 1 - score} END AS hit
