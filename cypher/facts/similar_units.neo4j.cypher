// Active units close to a question (anchors for a question whose subject is not named exactly).
// Shared index, oversampled: a row per candidate, a hit only where the space's (nearest.py).
UNWIND $probes AS probe
CALL db.index.vector.queryNodes('facts_memory_unit_embedding', $candidates, probe.embedding)
YIELD node AS u, score
WITH probe, u, score, CASE WHEN u.space = $space AND u.status = 'active' THEN 2 * vector.similarity.cosine(u.embedding, probe.embedding) - 1 END AS exact
RETURN probe.key AS key, 2 * score - 1 AS similarity,
       CASE WHEN exact >= $min_similarity
            THEN {id: u.id, subject: u.subject_key, category: u.category_key, similarity: exact} END AS hit
