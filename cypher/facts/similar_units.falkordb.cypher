// Active units close to a question (anchors for a question whose subject is not named exactly).
// Shared index, oversampled; nearest.py decides whether the candidates held enough.
UNWIND $probes AS probe
CALL db.idx.vector.queryNodes('MemoryUnit', 'embedding', $candidates, vecf32(probe.embedding))
YIELD node, score
WITH probe, collect(node) AS found, 1 - max(score) AS floor
RETURN probe.key AS key, size(found) AS seen, floor,
       [h IN [u IN found WHERE u.space = $space AND u.status = 'active' |
        {id: u.id, subject: u.subject_key, category: u.category_key,
         similarity: 1 - vec.cosineDistance(u.embedding, vecf32(probe.embedding))}]
       WHERE h.similarity >= $min_similarity] AS hits
