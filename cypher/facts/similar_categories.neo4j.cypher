// Vector anchors (§3.2, eq. 5): Category nodes whose name is close to the given one.
// Shared index, oversampled: a row per candidate, a hit only where the space's (nearest.py).
UNWIND $probes AS probe
CALL db.index.vector.queryNodes('facts_category_embedding', $candidates, probe.embedding)
YIELD node AS c, score
WITH probe, c, score, CASE WHEN c.space = $space THEN 2 * vector.similarity.cosine(c.embedding, probe.embedding) - 1 END AS exact
RETURN probe.key AS key, 2 * score - 1 AS similarity,
       CASE WHEN exact >= $min_similarity
            THEN {id: c.id, similarity: exact} END AS hit
