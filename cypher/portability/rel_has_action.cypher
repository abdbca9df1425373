UNWIND $rows AS row
MATCH (a:Trajectory {space: $space, id: row.source})
MATCH (b:Action {space: $space, id: row.target})
MERGE (a)-[r:HAS_ACTION]->(b)
SET r += row.props
RETURN count(r) AS written
