// FalkorDB 4.16 keeps a vector attribute's old value when a new one is assigned over it:
// clear it first (docs/DEVELOPING.md, "Cypher rules"). A record's vector, where it has one, is
// written as 32-bit floats (setNodeVectorProperty; a vecf32 SET on FalkorDB: queries.py).
UNWIND $rows AS row
MERGE (n:MemoryUnit {space: $space, id: row.id})
SET n += row.props, n.embedding = null
WITH n, row
CALL {
  WITH n, row
  WITH n, row WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
}
RETURN count(n) AS written
