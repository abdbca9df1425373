// Vector anchors (§3.2, eq. 5): Category nodes whose name is close to the given one.
// Shared index, oversampled (nearest.py): per probe, how many candidates the index gave, the
// lowest index similarity among them, the hits (the space's, with the exact cosine: the
// index's vectors are quantised), and the most the index can hold: the label's count, from
// the count store (OPTIONAL CALL keeps a row for a probe the index gives nothing).
WITH COUNT { (:Category) } AS indexed
UNWIND $probes AS probe
OPTIONAL CALL db.index.vector.queryNodes('facts_category_embedding', $candidates, probe.embedding)
YIELD node AS c, score
WITH probe, indexed, c, score, CASE WHEN c.space = $space THEN 2 * vector.similarity.cosine(c.embedding, probe.embedding) - 1 END AS exact
RETURN probe.key AS key, indexed, count(c) AS seen, min(2 * score - 1) AS floor,
       collect(CASE WHEN exact >= $min_similarity THEN {id: c.id, similarity: exact} END) AS hits
