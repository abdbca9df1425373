MERGE (s:Space {space: $space, id: $space})
ON CREATE SET s.created_at = $now
RETURN s.id AS id
