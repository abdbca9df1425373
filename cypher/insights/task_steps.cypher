MATCH (q:Query {space: $space, id: $id})-[:HAS_INTERACTION]->(s:InteractionStep)
WHERE s.space = $space
RETURN s.position AS position, s.role AS role, s.action AS action, s.observation AS observation
ORDER BY position
