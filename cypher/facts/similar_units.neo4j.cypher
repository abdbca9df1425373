// Active units close to a question (anchors for a question whose subject is not named exactly).
// Shared index, oversampled; nearest.py decides whether the candidates held enough.
UNWIND $probes AS probe
CALL db.index.vector.queryNodes('facts_memory_unit_embedding', $candidates, probe.embedding)
YIELD node, score
WITH probe, collect(node) AS found, 2 * min(score) - 1 AS floor
RETURN probe.key AS key, size(found) AS seen, floor,
       [h IN [u IN found WHERE u.space = $space AND u.status = 'active' |
        {id: u.id, subject: u.subject_key, category: u.category_key,
         similarity: 2 * vector.similarity.cosine(u.embedding, probe.embedding) - 1}]
       WHERE h.similarity >= $min_similarity] AS hits
