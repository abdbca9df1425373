UNWIND $ids AS task_id
MATCH (t:Task {space: $space, id: task_id})
RETURN t.id AS id, t.text AS text, t.names AS names, t.has_expert AS has_expert
