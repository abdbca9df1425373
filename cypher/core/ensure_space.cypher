MERGE (s:Space {space: $space, id: $space})
ON CREATE SET s.created_at = $now, s.speakers = []  // conversation participants (upsert_sessions)
RETURN s.id AS id
