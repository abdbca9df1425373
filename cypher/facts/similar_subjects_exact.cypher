// Vector anchors (§3.2, eq. 5): Subject nodes whose name is close to the given one.
// Exact scan of the space (nearest.py, when the shared index held too few of it).
UNWIND $probes AS probe
WITH probe.key AS key, toFloatList(probe.embedding) AS probe_vector
MATCH (s:Subject {space: $space})
WHERE s.embedding IS NOT NULL
WITH key, s, 2 * vector.similarity.cosine(s.embedding, probe_vector) - 1 AS similarity
WHERE similarity >= $min_similarity
WITH key, s, similarity
ORDER BY similarity DESC, s.id
WITH key, collect({id: s.id, similarity: similarity})[..$k] AS hits
RETURN key, hits
