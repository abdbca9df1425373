UNWIND $rows AS row
MERGE (t:Task {space: $space, id: row.id})
ON CREATE SET t.created_at = $now, t.has_expert = false, t.insights = [], t.workflow = []
SET t.text = row.text, t.names = row.names, t.embedding = row.embedding, t.updated_at = $now
RETURN count(t) AS written
