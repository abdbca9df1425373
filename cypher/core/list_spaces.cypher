MATCH (s:Space)
RETURN s.id AS id, s.created_at AS created_at
ORDER BY id
