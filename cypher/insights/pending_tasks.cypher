// Recorded tasks the controller has not judged yet, in the order they were recorded.
MATCH (q:Query)
WHERE q.space = $space AND q.recorded_at IS NOT NULL AND q.feedback_at IS NULL
RETURN q.id AS id
ORDER BY q.recorded_at, id
LIMIT $limit
