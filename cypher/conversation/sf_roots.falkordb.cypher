// sf mode roots (paper: top-5 entities, cosine ≥ 0.75) for each of the query's entity names.
// Shared index, oversampled: a row per candidate, a hit only where the space's, and a keyless
// row of the label's count from the graph's stats, the most the index can hold (nearest.py).
UNWIND $probes AS probe
CALL db.idx.vector.queryNodes('Entity', 'embedding', $candidates, vecf32(probe.embedding))
YIELD node AS e, score
RETURN probe.key AS key, 1 - score AS similarity,
       CASE WHEN e.space = $space AND 1 - score >= $min_similarity
            THEN {id: e.id, name: e.name, type: e.type, similarity: 1 - score} END AS hit,
       null AS indexed
UNION ALL
CALL db.meta.stats() YIELD labels
RETURN null AS key, null AS similarity, null AS hit, coalesce(labels['Entity'], 0) AS indexed
