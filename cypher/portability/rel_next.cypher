UNWIND $rows AS row
MATCH (a:Turn {space: $space, id: row.source})
MATCH (b:Turn {space: $space, id: row.target})
MERGE (a)-[r:NEXT]->(b)
SET r += row.props
RETURN count(r) AS written
