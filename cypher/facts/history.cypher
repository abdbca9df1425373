// Every version of a subject's facts, any status, with what replaced or was contested.
MATCH (s:Subject {space: $space, id: $subject})-[:SUBJECT_OF]->(u:MemoryUnit)
WHERE $relation IS NULL OR u.relation_key = $relation
OPTIONAL MATCH (newer:MemoryUnit)-[:SUPERSEDES]->(u)
OPTIONAL MATCH (u)-[:CONTESTS]->(contested:MemoryUnit)
RETURN u {.id, .subject, .relation, .object, .category, .context, .status, .confidence, .valid_from, .valid_to, .recorded_at, .source, .text, .subject_key, .relation_key, .object_key, .category_key, .context_key} AS unit, newer.id AS superseded_by, contested.id AS contests
ORDER BY u.relation_key, u.context_key, u.valid_from, u.recorded_at, u.id
