// §4.3: the space's tasks closest to a task text (but those in $exclude; experts only on request);
// their lessons come from get_tasks, for the few kept.
// Shared index, oversampled (nearest.py): per probe, how many candidates the index gave, the
// lowest index similarity among them, the hits (the space's, with the exact cosine: the
// index's vectors are quantised), and the most the index can hold: the label's count, from
// the count store (OPTIONAL CALL keeps a row for a probe the index gives nothing).
WITH COUNT { (:Task) } AS indexed
UNWIND $probes AS probe
OPTIONAL CALL db.index.vector.queryNodes('experience_task_embedding', $candidates, probe.embedding)
YIELD node AS t, score
RETURN probe.key AS key, indexed, count(t) AS seen, min(2 * score - 1) AS floor,
       collect(CASE WHEN t.space = $space AND NOT t.id IN $exclude AND (t.has_expert = true OR NOT $experts_only)
                    THEN {id: t.id, embedding: CASE WHEN $with_vectors THEN t.embedding END, text: t.text,
                          similarity: 2 * vector.similarity.cosine(t.embedding, probe.embedding) - 1} END) AS hits
