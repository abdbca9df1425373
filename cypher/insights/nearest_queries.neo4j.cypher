// eq. 2: the space's recorded queries closest to a task (but those in $exclude), among the
// tasks of its structure when it has one ($task_key; a query stored before keys is unknown).
// Shared index, oversampled (nearest.py): per probe, how many candidates the index gave, the
// lowest index similarity among them, the hits (the space's, with the exact cosine: the
// index's vectors are quantised), and the most the index can hold: the label's count, from
// the count store (OPTIONAL CALL keeps a row for a probe the index gives nothing).
WITH COUNT { (:Query) } AS indexed
UNWIND $probes AS probe
OPTIONAL CALL db.index.vector.queryNodes('insights_query_embedding', $candidates, probe.embedding)
YIELD node AS q, score
RETURN probe.key AS key, indexed, count(q) AS seen, min(2 * score - 1) AS floor,
       collect(CASE WHEN q.space = $space AND NOT q.id IN $exclude
                         AND ($task_key IS NULL OR coalesce(q.task_key, $task_key) = $task_key)
                    THEN {id: q.id, embedding: CASE WHEN $with_vectors THEN q.embedding END,
                          similarity: 2 * vector.similarity.cosine(q.embedding, probe.embedding) - 1} END) AS hits
