// Vector anchors (§3.2, eq. 5): Subject nodes whose name is close to the given one.
// Shared index, oversampled (nearest.py): per probe, how many candidates the index gave, the
// lowest index similarity among them, the hits (the space's, with the exact cosine: the
// index's vectors are quantised), and the most the index can hold: the label's count, from
// the count store (OPTIONAL CALL keeps a row for a probe the index gives nothing).
WITH COUNT { (:Subject) } AS indexed
UNWIND $probes AS probe
OPTIONAL CALL db.index.vector.queryNodes('facts_subject_embedding', $candidates, probe.embedding)
YIELD node AS s, score
WITH probe, indexed, s, score, CASE WHEN s.space = $space THEN 2 * vector.similarity.cosine(s.embedding, probe.embedding) - 1 END AS exact
RETURN probe.key AS key, indexed, count(s) AS seen, min(2 * score - 1) AS floor,
       collect(CASE WHEN exact >= $min_similarity THEN {id: s.id, similarity: exact} END) AS hits
