// New vectors for turns. FalkorDB 4.16 keeps a vector attribute's old value when a new vecf32
// is assigned over it, and re-indexes the vector on any property write: the other property
// and the cleared vector are written first (docs/DEVELOPING.md, "Cypher rules").
UNWIND $rows AS row
MATCH (t:Turn {space: $space, id: row.id})
SET t.embedded_with = $model, t.context_embedded = true, t.embedding = null
WITH t, row
SET t.embedding = vecf32(row.embedding)
RETURN count(t) AS written
