// FalkorDB 4.16 keeps a vector attribute's old value when a new one is assigned over it:
// clear it first (docs/DEVELOPING.md, "Cypher rules"). The vector is written as 32-bit floats
// (setNodeVectorProperty; a vecf32 SET on FalkorDB: graphmem_neo4j/queries.py).
UNWIND $rows AS row
MERGE (t:Task {space: $space, id: row.id})
ON CREATE SET t.created_at = $now, t.has_expert = false, t.insights = [], t.workflow = []
SET t.text = row.text, t.names = row.names, t.embedding = null, t.updated_at = $now
WITH t, row
CALL db.create.setNodeVectorProperty(t, 'embedding', row.embedding)
RETURN count(t) AS written
