// Every version of a subject's facts, any status, with what replaced or was contested.
MATCH (s:Subject {space: $space, id: $subject})-[:SUBJECT_OF]->(u:MemoryUnit)
WHERE $relation IS NULL OR u.relation_key = $relation
OPTIONAL MATCH (newer:MemoryUnit)-[:SUPERSEDES]->(u)
OPTIONAL MATCH (u)-[:CONTESTS]->(contested:MemoryUnit)
RETURN u {.*, embedding: null} AS unit, newer.id AS superseded_by, contested.id AS contests
ORDER BY u.relation_key, u.context_key, u.valid_from, u.recorded_at, u.id
