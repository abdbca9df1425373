// Items nearest a query under a namespace prefix (a hit only where the space's and under the
// prefix).
// Shared index, oversampled (nearest.py): per probe, how many candidates the index gave, the
// lowest index similarity among them, the hits (the space's, with the exact cosine: the
// index's vectors are quantised), and the most the index can hold: the label's count, from
// the count store (OPTIONAL CALL keeps a row for a probe the index gives nothing).
WITH COUNT { (:StoreItem) } AS indexed
UNWIND $probes AS probe
OPTIONAL CALL db.index.vector.queryNodes('store_item_embedding', $candidates, probe.embedding)
YIELD node AS n, score
RETURN probe.key AS key, indexed, count(n) AS seen, min(2 * score - 1) AS floor,
       collect(CASE WHEN n.space = $space AND n.ns_path STARTS WITH $prefix
                    THEN {id: n.id, namespace: n.namespace, key: n.key, value_json: n.value_json,
                          created_at: n.created_at, updated_at: n.updated_at,
                          similarity: 2 * vector.similarity.cosine(n.embedding, probe.embedding) - 1} END) AS hits
