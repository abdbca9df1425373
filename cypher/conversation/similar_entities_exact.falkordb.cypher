// De-duplication by embedding (paper: cosine ≥ τ_dedup): stored entities close to each new name.
// Exact scan of the space (nearest.py, when the shared index held too few of it).
UNWIND $probes AS probe
WITH probe.key AS key, vecf32(probe.embedding) AS probe_vector
MATCH (e:Entity {space: $space})
WHERE e.embedding IS NOT NULL
WITH key, e, 1 - vec.cosineDistance(e.embedding, probe_vector) AS similarity
WHERE similarity >= $min_similarity
WITH key, e, similarity
ORDER BY similarity DESC, e.id
WITH key, collect({id: e.id, name: e.name, similarity: similarity})[..$k] AS hits
RETURN key, hits
