// The task's interaction graph: its steps in order (G_inter of eq. 1).
UNWIND $rows AS row
MATCH (q:Query {space: $space, id: $query_id})
MERGE (s:InteractionStep {space: $space, id: row.id})
SET s.query_id = $query_id, s.position = row.position, s.role = row.role,
    s.action = row.action, s.observation = row.observation
MERGE (q)-[:HAS_INTERACTION]->(s)
FOREACH (previous IN CASE WHEN row.previous IS NULL THEN [] ELSE [row.previous] END |
  MERGE (p:InteractionStep {space: $space, id: previous})
  MERGE (p)-[:NEXT_INTERACTION]->(s)
)
RETURN count(s) AS written
