// Source entities as Subjects, the facts layer's entity nodes (an entity that is only ever an
// object, or has no relationship, is kept too). An existing Subject is left as it is.
UNWIND $rows AS row
MERGE (s:Subject {space: $space, id: row.key})
ON CREATE SET s.name = row.name, s.embedding = vecf32(row.embedding),
              s.created_at = coalesce(row.created_at, $now)
RETURN count(s) AS written
