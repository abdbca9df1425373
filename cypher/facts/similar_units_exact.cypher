// Active units close to a question (anchors for a question whose subject is not named exactly).
// Exact scan of the space (nearest.py, when the shared index held too few of it).
UNWIND $probes AS probe
WITH probe.key AS key, toFloatList(probe.embedding) AS probe_vector
MATCH (u:MemoryUnit {space: $space})
WHERE u.embedding IS NOT NULL AND u.status = 'active'
WITH key, u, 2 * vector.similarity.cosine(u.embedding, probe_vector) - 1 AS similarity
WHERE similarity >= $min_similarity
WITH key, u, similarity
ORDER BY similarity DESC, u.id
WITH key, collect({id: u.id, subject: u.subject_key, category: u.category_key, similarity: similarity})[..$k] AS hits
RETURN key, hits
