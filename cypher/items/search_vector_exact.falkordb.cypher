// Exact scan of the space's items under the prefix (nearest.py, when the index held too few).
UNWIND $probes AS probe
WITH probe.key AS key, vecf32(probe.embedding) AS probe_vector
MATCH (n:StoreItem {space: $space})
WHERE n.embedding IS NOT NULL AND n.ns_path STARTS WITH $prefix
WITH key, n, 1 - vec.cosineDistance(n.embedding, probe_vector) AS similarity
ORDER BY similarity DESC, n.id
WITH key, collect({id: n.id, namespace: n.namespace, key: n.key, value_json: n.value_json,
                   created_at: n.created_at, updated_at: n.updated_at,
                   similarity: similarity})[..$k] AS hits
RETURN key, hits
