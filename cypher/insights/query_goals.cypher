// The goals of a space's recorded tasks, by id, in the order they were recorded, from the
// $skip-th on: what the space's lexical index (lexical.py) learns its word weights from.
MATCH (q:Query)
WHERE q.space = $space AND q.recorded_at IS NOT NULL
RETURN q.id AS id, q.text AS text
ORDER BY q.recorded_at, q.id
SKIP $skip
