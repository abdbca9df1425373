// Vector anchors (§3.2, eq. 5): Category nodes whose name is close to the given one.
// Exact scan of the space (nearest.py, when the shared index held too few of it).
UNWIND $probes AS probe
WITH probe.key AS key, toFloatList(probe.embedding) AS probe_vector
MATCH (c:Category {space: $space})
WHERE c.embedding IS NOT NULL
WITH key, c, 2 * vector.similarity.cosine(c.embedding, probe_vector) - 1 AS similarity
WHERE similarity >= $min_similarity
WITH key, c, similarity
ORDER BY similarity DESC, c.id
WITH key, collect({id: c.id, similarity: similarity})[..$k] AS hits
RETURN key, hits
