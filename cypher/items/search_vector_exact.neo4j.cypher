// Exact scan of the space's items under the prefix (nearest.py, when the index held too few).
UNWIND $probes AS probe
MATCH (n:StoreItem {space: $space})
WHERE n.embedding IS NOT NULL AND n.ns_path STARTS WITH $prefix
WITH probe, n, 2 * vector.similarity.cosine(n.embedding, probe.embedding) - 1 AS similarity
ORDER BY similarity DESC, n.id
WITH probe, collect({id: n.id, namespace: n.namespace, key: n.key, value_json: n.value_json,
                     created_at: n.created_at, updated_at: n.updated_at,
                     similarity: similarity})[..$k] AS hits
RETURN probe.key AS key, hits
