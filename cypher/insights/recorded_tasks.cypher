UNWIND $ids AS wanted
MATCH (q:Query {space: $space, id: wanted})
WHERE q.recorded_at IS NOT NULL
RETURN q.id AS id
