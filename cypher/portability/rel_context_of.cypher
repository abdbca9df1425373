UNWIND $rows AS row
MATCH (a:Context {space: $space, id: row.source})
MATCH (b:MemoryUnit {space: $space, id: row.target})
MERGE (a)-[r:CONTEXT_OF]->(b)
SET r += row.props
RETURN count(r) AS written
