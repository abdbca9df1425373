// New MemoryUnits under their Subject, Category and Context nodes (§3.1). A unit that already
// exists is left as it is, so re-running an ingestion changes nothing. New units arrive with
// the status the rewrite gives them first ('pending' until apply_statuses flips it).
UNWIND $rows AS row
MERGE (s:Subject {space: $space, id: row.subject_key})
ON CREATE SET s.name = row.subject, s.embedding = vecf32(row.subject_embedding), s.created_at = $now
MERGE (c:Category {space: $space, id: row.category_key})
ON CREATE SET c.name = row.category, c.embedding = vecf32(row.category_embedding), c.created_at = $now
MERGE (u:MemoryUnit {space: $space, id: row.id})
ON CREATE SET u += row.props, u.embedding = vecf32(row.embedding)
MERGE (s)-[:SUBJECT_OF]->(u)
MERGE (c)-[:CATEGORY_OF]->(u)
FOREACH (_ IN CASE WHEN row.context_key IS NULL THEN [] ELSE [1] END |
  MERGE (x:Context {space: $space, id: row.context_key})
  ON CREATE SET x.name = row.context, x.created_at = $now
  MERGE (x)-[:CONTEXT_OF]->(u))
RETURN count(u) AS written
