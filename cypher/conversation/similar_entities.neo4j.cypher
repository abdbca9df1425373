// De-duplication by embedding (paper: cosine ≥ τ_dedup): stored entities close to each new name.
// Shared index, oversampled: a row per candidate, a hit only where the space's (nearest.py).
UNWIND $probes AS probe
CALL db.index.vector.queryNodes('entity_embedding', $candidates, probe.embedding)
YIELD node AS e, score
WITH probe, e, score, CASE WHEN e.space = $space THEN 2 * vector.similarity.cosine(e.embedding, probe.embedding) - 1 END AS exact
RETURN probe.key AS key, 2 * score - 1 AS similarity,
       CASE WHEN exact >= $min_similarity
            THEN {id: e.id, name: e.name, similarity: exact} END AS hit
