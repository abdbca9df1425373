// One item of a key-value namespace (items/service.py). The vector is cleared before it is
// set: FalkorDB 4.16 keeps a vector attribute's old value when a new one is assigned over it.
// It is written as 32-bit floats (setNodeVectorProperty; a vecf32 SET on FalkorDB: queries.py).
UNWIND $rows AS row
MERGE (n:StoreItem {space: $space, id: row.id})
ON CREATE SET n.created_at = $now
SET n.namespace = row.namespace, n.ns_path = row.ns_path, n.depth = row.depth,
    n.key = row.key, n.value_json = row.value_json, n.text = row.text,
    n.updated_at = $now, n.embedding = null
WITH n, row
CALL {
  WITH n, row
  WITH n, row WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
}
RETURN count(n) AS written
