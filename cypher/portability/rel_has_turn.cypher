UNWIND $rows AS row
MATCH (a:Session {space: $space, id: row.source})
MATCH (b:Turn {space: $space, id: row.target})
MERGE (a)-[r:HAS_TURN]->(b)
SET r += row.props
RETURN count(r) AS written
