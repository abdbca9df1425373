// §4.3: the space's tasks closest to a task text (but those in $exclude; experts only on request).
// Shared index, oversampled; nearest.py decides whether the candidates held enough.
UNWIND $probes AS probe
CALL db.index.vector.queryNodes('experience_task_embedding', $candidates, probe.embedding)
YIELD node, score
WITH probe, collect(node) AS found, 2 * min(score) - 1 AS floor
RETURN probe.key AS key, size(found) AS seen, floor,
       [t IN found WHERE t.space = $space AND NOT t.id IN $exclude AND (t.has_expert = true OR NOT $experts_only) |
        {id: t.id, embedding: CASE WHEN $with_vectors THEN t.embedding END, text: t.text, insights: t.insights, workflow: t.workflow, trajectories: t.trajectories,
         similarity: 2 * vector.similarity.cosine(t.embedding, probe.embedding) - 1}] AS hits
