UNWIND $rows AS row
MATCH (t:Task {space: $space, id: row.task_id})
MERGE (r:Trajectory {space: $space, id: row.id})
ON CREATE SET r.created_at = $now
SET r += row.props, r.task_id = row.task_id, r.updated_at = $now
MERGE (r)-[:OF_TASK]->(t)
RETURN count(r) AS written
