// Items nearest a query under a namespace prefix (nearest.py: a row per candidate, a hit
// only where the space's and under the prefix).
UNWIND $probes AS probe
CALL db.idx.vector.queryNodes('StoreItem', 'embedding', $candidates, vecf32(probe.embedding))
YIELD node AS n, score
RETURN probe.key AS key, 1 - score AS similarity,
       CASE WHEN n.space = $space AND n.ns_path STARTS WITH $prefix
            THEN {id: n.id, namespace: n.namespace, key: n.key, value_json: n.value_json,
                  created_at: n.created_at, updated_at: n.updated_at, similarity: 1 - score} END AS hit
