// The comparison an exploration run was last matched in.
MATCH (a:Trajectory {space: $space, id: $id})-[m:MATCHED_TO]->(b:Trajectory)
WHERE b.space = $space
RETURN b.id AS expert, m.cost AS cost, m.method AS method, m.diff_json AS diff_json
