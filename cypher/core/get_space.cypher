MATCH (s:Space {space: $space, id: $space})
RETURN s.id AS id, s.created_at AS created_at
