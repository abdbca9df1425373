UNWIND $rows AS row
MATCH (a:MemoryUnit {space: $space, id: row.source})
MATCH (b:MemoryUnit {space: $space, id: row.target})
MERGE (a)-[r:CONTESTS]->(b)
SET r += row.props
RETURN count(r) AS written
