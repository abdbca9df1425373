// The goals of a space's resolved tasks with the structure each was recorded with, in the order
// they were recorded, from the $skip-th on: what the space's goal model (task_model.py) learns
// from, incrementally.
MATCH (q:Query)
WHERE q.space = $space AND q.recorded_at IS NOT NULL AND q.status = 'resolved'
      AND q.task_key IS NOT NULL AND q.task_key <> ''
RETURN q.text AS text, q.task_key AS key
ORDER BY q.recorded_at, q.id
SKIP $skip
