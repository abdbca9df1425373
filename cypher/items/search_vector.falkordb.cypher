// Items nearest a query under a namespace prefix (nearest.py: a row per candidate, a hit
// only where the space's and under the prefix, and one keyless row of the label's count, the
// most the index can hold).
UNWIND $probes AS probe
CALL db.idx.vector.queryNodes('StoreItem', 'embedding', $candidates, vecf32(probe.embedding))
YIELD node AS n, score
RETURN probe.key AS key, 1 - score AS similarity,
       CASE WHEN n.space = $space AND n.ns_path STARTS WITH $prefix
            THEN {id: n.id, namespace: n.namespace, key: n.key, value_json: n.value_json,
                  created_at: n.created_at, updated_at: n.updated_at, similarity: 1 - score} END AS hit,
       null AS indexed
UNION ALL
CALL db.meta.stats() YIELD labels
RETURN null AS key, null AS similarity, null AS hit, coalesce(labels['StoreItem'], 0) AS indexed
