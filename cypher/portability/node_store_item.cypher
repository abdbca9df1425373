// toFloatList marks the vector (FalkorDB stores it as vecf32: graphmem_neo4j/queries.py).
// FalkorDB 4.16 keeps a vector attribute's old value when a new one is assigned over it:
// clear it first (docs/DEVELOPING.md, "Cypher rules").
UNWIND $rows AS row
MERGE (n:StoreItem {space: $space, id: row.id})
SET n += row.props, n.embedding = null
WITH n, row
SET n.embedding = CASE WHEN row.embedding IS NULL THEN null ELSE toFloatList(row.embedding) END
RETURN count(n) AS written
