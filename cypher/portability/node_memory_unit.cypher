UNWIND $rows AS row
MERGE (n:MemoryUnit {space: $space, id: row.id})
SET n += row.props, n.embedding = row.embedding
RETURN count(n) AS written
