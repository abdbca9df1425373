// One item of a key-value namespace (items/service.py). The vector is cleared before it is
// set: FalkorDB 4.16 keeps a vector attribute's old value when a new one is assigned over it.
UNWIND $rows AS row
MERGE (n:StoreItem {space: $space, id: row.id})
ON CREATE SET n.created_at = $now
SET n.namespace = row.namespace, n.ns_path = row.ns_path, n.depth = row.depth,
    n.key = row.key, n.value_json = row.value_json, n.text = row.text,
    n.updated_at = $now, n.embedding = null
WITH n, row
SET n.embedding = CASE WHEN row.embedding IS NULL THEN null ELSE toFloatList(row.embedding) END
RETURN count(n) AS written
