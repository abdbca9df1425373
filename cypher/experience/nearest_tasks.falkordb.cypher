// §4.3: the space's tasks closest to a task text (but those in $exclude; experts only on request).
// Shared index, oversampled; nearest.py decides whether the candidates held enough.
UNWIND $probes AS probe
CALL db.idx.vector.queryNodes('Task', 'embedding', $candidates, vecf32(probe.embedding))
YIELD node, score
WITH probe, collect(node) AS found, 1 - max(score) AS floor
RETURN probe.key AS key, size(found) AS seen, floor,
       [t IN found WHERE t.space = $space AND NOT t.id IN $exclude AND (t.has_expert = true OR NOT $experts_only) |
        {id: t.id, embedding: CASE WHEN $with_vectors THEN t.embedding END, text: t.text, insights: t.insights, workflow: t.workflow, trajectories: t.trajectories,
         similarity: 1 - vec.cosineDistance(t.embedding, vecf32(probe.embedding))}] AS hits
