// §4.3: the space's tasks closest to a task text (but those in $exclude; experts only on request);
// their lessons come from get_tasks, for the few kept.
// Exact scan of the space (nearest.py, when the shared index held too few of it).
UNWIND $probes AS probe
WITH probe.key AS key, toFloatList(probe.embedding) AS probe_vector
MATCH (t:Task {space: $space})
WHERE t.embedding IS NOT NULL AND NOT t.id IN $exclude AND (t.has_expert = true OR NOT $experts_only)
WITH key, t, 2 * vector.similarity.cosine(t.embedding, probe_vector) - 1 AS similarity
ORDER BY similarity DESC, t.id
WITH key, collect({id: t.id, embedding: CASE WHEN $with_vectors THEN t.embedding END, text: t.text, similarity: similarity})[..$k] AS hits
RETURN key, hits
