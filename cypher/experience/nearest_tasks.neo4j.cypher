// §4.3: the space's tasks closest to a task text (but those in $exclude; experts only on request);
// their lessons come from get_tasks, for the few kept.
// Shared index, oversampled: a row per candidate, a hit only where the space's (nearest.py).
UNWIND $probes AS probe
CALL db.index.vector.queryNodes('experience_task_embedding', $candidates, probe.embedding)
YIELD node AS t, score
RETURN probe.key AS key, 2 * score - 1 AS similarity,
       CASE WHEN t.space = $space AND NOT t.id IN $exclude AND (t.has_expert = true OR NOT $experts_only)
            THEN {id: t.id, embedding: CASE WHEN $with_vectors THEN t.embedding END, text: t.text,
                  similarity: 2 * vector.similarity.cosine(t.embedding, probe.embedding) - 1} END AS hit
