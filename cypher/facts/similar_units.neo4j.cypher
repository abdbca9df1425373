// Active units close to a question (anchors for a question whose subject is not named exactly).
// Shared index, oversampled (nearest.py): per probe, how many candidates the index gave, the
// lowest index similarity among them, the hits (the space's, with the exact cosine: the
// index's vectors are quantised), and the most the index can hold: the label's count, from
// the count store (OPTIONAL CALL keeps a row for a probe the index gives nothing).
WITH COUNT { (:MemoryUnit) } AS indexed
UNWIND $probes AS probe
OPTIONAL CALL db.index.vector.queryNodes('facts_memory_unit_embedding', $candidates, probe.embedding)
YIELD node AS u, score
WITH probe, indexed, u, score, CASE WHEN u.space = $space AND u.status = 'active' THEN 2 * vector.similarity.cosine(u.embedding, probe.embedding) - 1 END AS exact
RETURN probe.key AS key, indexed, count(u) AS seen, min(2 * score - 1) AS floor,
       collect(CASE WHEN exact >= $min_similarity
                    THEN {id: u.id, subject: u.subject_key, category: u.category_key, similarity: exact} END) AS hits
