// FalkorDB 4.16 keeps a vector attribute's old value when a new one is assigned over it:
// clear it first (docs/DEVELOPING.md, "Cypher rules").
UNWIND $rows AS row
MERGE (t:Task {space: $space, id: row.id})
ON CREATE SET t.created_at = $now, t.has_expert = false, t.insights = [], t.workflow = []
SET t.text = row.text, t.names = row.names, t.embedding = null, t.updated_at = $now
WITH t, row
SET t.embedding = vecf32(row.embedding)
RETURN count(t) AS written
