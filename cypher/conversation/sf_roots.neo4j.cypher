// sf mode roots (paper: top-5 entities, cosine ≥ 0.75) for each of the query's entity names.
// Shared index, oversampled (nearest.py): per probe, how many candidates the index gave, the
// lowest index similarity among them, the hits (the space's, with the exact cosine: the
// index's vectors are quantised), and the most the index can hold: the label's count, from
// the count store (OPTIONAL CALL keeps a row for a probe the index gives nothing).
WITH COUNT { (:Entity) } AS indexed
UNWIND $probes AS probe
OPTIONAL CALL db.index.vector.queryNodes('entity_embedding', $candidates, probe.embedding)
YIELD node AS e, score
WITH probe, indexed, e, score, CASE WHEN e.space = $space THEN 2 * vector.similarity.cosine(e.embedding, probe.embedding) - 1 END AS exact
RETURN probe.key AS key, indexed, count(e) AS seen, min(2 * score - 1) AS floor,
       collect(CASE WHEN exact >= $min_similarity
                    THEN {id: e.id, name: e.name, type: e.type, similarity: exact} END) AS hits
