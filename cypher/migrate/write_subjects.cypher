// Source entities as Subjects, the facts layer's entity nodes (an entity that is only ever an
// object, or has no relationship, is kept too). An existing Subject is left as it is; a new
// one's vector is written as 32-bit floats (setNodeVectorProperty; a vecf32 SET on FalkorDB:
// graphmem_neo4j/queries.py).
UNWIND $rows AS row
MERGE (s:Subject {space: $space, id: row.key})
ON CREATE SET s.name = row.name, s.created_at = coalesce(row.created_at, $now)
WITH s, row
CALL {
  WITH s, row
  WITH s, row WHERE s.embedding IS NULL
  CALL db.create.setNodeVectorProperty(s, 'embedding', row.embedding)
}
RETURN count(s) AS written
