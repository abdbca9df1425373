// Mem0 graph-store relationships: the type is the relation text, so it is read with type(r).
// Either end being a Mem0 entity makes the relationship Mem0's. Read-only.
MATCH (a)-[r]->(b)
WHERE a.space IS NULL AND b.space IS NULL AND a.uuid IS NULL AND b.uuid IS NULL
  AND (a.user_id IS NOT NULL OR '__Entity__' IN labels(a)
       OR b.user_id IS NOT NULL OR '__Entity__' IN labels(b))
  AND ($user_id IS NULL OR a.user_id = $user_id OR b.user_id = $user_id
       OR a.user_id IS NULL OR b.user_id IS NULL)
RETURN elementId(r) AS element_id, type(r) AS type,
       elementId(a) AS source_id, a.name AS source_name, a.user_id AS source_user,
       labels(a) AS source_labels,
       elementId(b) AS target_id, b.name AS target_name, b.user_id AS target_user,
       labels(b) AS target_labels,
       r.created AS created, r.created_at AS created_at, r.updated_at AS updated_at,
       r.mentions AS mentions, r.valid AS valid, r.invalidated_at AS invalidated_at
ORDER BY element_id
