// FalkorDB 4.16 keeps a vector attribute's old value when a new vecf32 is assigned over it:
// clear it first (docs/DEVELOPING.md, "Cypher rules").
UNWIND $rows AS row
MERGE (n:Category {space: $space, id: row.id})
SET n += row.props, n.embedding = null
WITH n, row
SET n.embedding = CASE WHEN row.embedding IS NULL THEN null ELSE vecf32(row.embedding) END
RETURN count(n) AS written
