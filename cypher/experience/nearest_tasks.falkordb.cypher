// §4.3: the space's tasks closest to a task text (but those in $exclude; experts only on request);
// their lessons come from get_tasks, for the few kept.
// Shared index, oversampled: a row per candidate, a hit only where the space's, and a keyless
// row of the label's count from the graph's stats, the most the index can hold (nearest.py).
UNWIND $probes AS probe
CALL db.idx.vector.queryNodes('Task', 'embedding', $candidates, vecf32(probe.embedding))
YIELD node AS t, score
RETURN probe.key AS key, 1 - score AS similarity,
       CASE WHEN t.space = $space AND NOT t.id IN $exclude AND (t.has_expert = true OR NOT $experts_only)
            THEN {id: t.id, embedding: CASE WHEN $with_vectors THEN t.embedding END, text: t.text, similarity: 1 - score} END AS hit,
       null AS indexed
UNION ALL
CALL db.meta.stats() YIELD labels
RETURN null AS key, null AS similarity, null AS hit, coalesce(labels['Task'], 0) AS indexed
