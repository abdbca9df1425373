UNWIND $rows AS row
MATCH (a:Turn {space: $space, id: row.source})
MATCH (b:Entity {space: $space, id: row.target})
MERGE (a)-[r:MENTIONS]->(b)
SET r += row.props
RETURN count(r) AS written
