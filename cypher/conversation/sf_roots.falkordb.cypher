// sf mode roots (paper: top-5 entities, cosine ≥ 0.75) for each of the query's entity names.
// Shared index, oversampled: a row per candidate, a hit only where the space's (nearest.py).
UNWIND $probes AS probe
CALL db.idx.vector.queryNodes('Entity', 'embedding', $candidates, vecf32(probe.embedding))
YIELD node AS e, score
RETURN probe.key AS key, 1 - score AS similarity,
       CASE WHEN e.space = $space AND 1 - score >= $min_similarity
            THEN {id: e.id, name: e.name, type: e.type, similarity: 1 - score} END AS hit
