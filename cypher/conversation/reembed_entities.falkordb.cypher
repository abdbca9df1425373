// New vectors for entities. FalkorDB 4.16 keeps a vector attribute's old value when a new vecf32
// is assigned over it, and re-indexes the vector on any property write: the other property
// and the cleared vector are written first (docs/DEVELOPING.md, "Cypher rules").
UNWIND $rows AS row
MATCH (e:Entity {space: $space, id: row.id})
SET e.embedded_with = $model, e.embedding = null
WITH e, row
SET e.embedding = vecf32(row.embedding)
RETURN count(e) AS written
