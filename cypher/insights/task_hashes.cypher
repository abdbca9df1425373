// Content hashes of the tasks among $ids that are stored (recorded or half-recorded).
UNWIND $ids AS wanted
MATCH (q:Query {space: $space, id: wanted})
RETURN q.id AS id, q.content_hash AS content_hash
