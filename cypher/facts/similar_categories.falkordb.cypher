// Vector anchors (§3.2, eq. 5): Category nodes whose name is close to the given one.
// Shared index, oversampled: a row per candidate, a hit only where the space's (nearest.py).
UNWIND $probes AS probe
CALL db.idx.vector.queryNodes('Category', 'embedding', $candidates, vecf32(probe.embedding))
YIELD node AS c, score
RETURN probe.key AS key, 1 - score AS similarity,
       CASE WHEN c.space = $space AND 1 - score >= $min_similarity
            THEN {id: c.id, similarity: 1 - score} END AS hit
