MATCH (q:Query {space: $space, id: $id})
SET q.feedback_at = coalesce(q.feedback_at, $now)
RETURN q.feedback_at AS feedback_at
