// The vector is written as 32-bit floats (db.create.setNodeVectorProperty, docs/neo4j.md).
UNWIND $rows AS row
MERGE (t:Task {space: $space, id: row.id})
ON CREATE SET t.created_at = $now, t.has_expert = false, t.insights = [], t.workflow = []
SET t.text = row.text, t.names = row.names, t.updated_at = $now
WITH t, row
CALL db.create.setNodeVectorProperty(t, 'embedding', row.embedding)
RETURN count(t) AS written
