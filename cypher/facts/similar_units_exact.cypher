// Active units close to a question (anchors for a question whose subject is not named exactly).
// Exact scan of the space (nearest.py, when the shared index held too few of it).
UNWIND $probes AS probe
WITH probe, toFloatList(probe.embedding) AS probe_vector
MATCH (u:MemoryUnit {space: $space})
WHERE u.embedding IS NOT NULL AND u.status = 'active'
WITH probe, u, 2 * vector.similarity.cosine(u.embedding, probe_vector) - 1 AS similarity
WHERE similarity >= $min_similarity
WITH probe, u, similarity
ORDER BY similarity DESC, u.id
WITH probe, collect({id: u.id, subject: u.subject_key, category: u.category_key, similarity: similarity})[..$k] AS hits
RETURN probe.key AS key, hits
