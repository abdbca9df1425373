UNWIND $rows AS row
MATCH (r:Trajectory {space: $space, id: row.trajectory_id})
MERGE (a:Action {space: $space, id: row.id})
SET a += row.props, a.trajectory_id = row.trajectory_id
MERGE (r)-[:HAS_ACTION]->(a)
RETURN count(a) AS written
