// The units of a subject valid now (status active) or, with $as_of, valid at that time
// (valid_from <= as_of < valid_to; pending claims never held).
MATCH (s:Subject {space: $space, id: $subject})-[:SUBJECT_OF]->(u:MemoryUnit)
WHERE ($relation IS NULL OR u.relation_key = $relation)
  AND ($category IS NULL OR u.category_key = $category)
  AND ($context IS NULL OR u.context_key = $context)
  AND (($as_of IS NULL AND u.status = 'active')
       OR ($as_of IS NOT NULL AND u.status <> 'pending' AND u.valid_from <= $as_of
           AND (u.valid_to IS NULL OR u.valid_to > $as_of)))
RETURN u {.*, embedding: null} AS unit
ORDER BY u.relation_key, u.context_key, u.valid_from, u.id
