// New MemoryUnits under their Subject, Category and Context nodes (§3.1). A unit that already
// exists is left as it is, so re-running an ingestion changes nothing. New units arrive with
// the status the rewrite gives them first ('pending' until apply_statuses flips it). A new
// node's vector is written as 32-bit floats (setNodeVectorProperty; a vecf32 SET on FalkorDB:
// graphmem_neo4j/queries.py), once: FalkorDB re-indexes a vector on every write to its node.
UNWIND $rows AS row
MERGE (s:Subject {space: $space, id: row.subject_key})
ON CREATE SET s.name = row.subject, s.created_at = $now
MERGE (c:Category {space: $space, id: row.category_key})
ON CREATE SET c.name = row.category, c.created_at = $now
MERGE (u:MemoryUnit {space: $space, id: row.id})
ON CREATE SET u += row.props
WITH row, s, c, u
CALL {
  WITH row, s
  WITH row, s WHERE s.embedding IS NULL
  CALL db.create.setNodeVectorProperty(s, 'embedding', row.subject_embedding)
}
CALL {
  WITH row, c
  WITH row, c WHERE c.embedding IS NULL
  CALL db.create.setNodeVectorProperty(c, 'embedding', row.category_embedding)
}
CALL {
  WITH row, u
  WITH row, u WHERE u.embedding IS NULL
  CALL db.create.setNodeVectorProperty(u, 'embedding', row.embedding)
}
MERGE (s)-[:SUBJECT_OF]->(u)
MERGE (c)-[:CATEGORY_OF]->(u)
FOREACH (_ IN CASE WHEN row.context_key IS NULL THEN [] ELSE [1] END |
  MERGE (x:Context {space: $space, id: row.context_key})
  ON CREATE SET x.name = row.context, x.created_at = $now
  MERGE (x)-[:CONTEXT_OF]->(u))
RETURN count(u) AS written
