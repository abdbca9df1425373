// A trajectory stored again with other content: drop its old decision graph first.
UNWIND $ids AS trajectory_id
MATCH (r:Trajectory {space: $space, id: trajectory_id})-[:HAS_ACTION]->(a:Action)
WHERE a.space = $space
DETACH DELETE a
RETURN count(*) AS deleted
