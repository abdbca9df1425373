UNWIND $rows AS row
MATCH (a:Trajectory {space: $space, id: row.source})
MATCH (b:Task {space: $space, id: row.target})
MERGE (a)-[r:OF_TASK]->(b)
SET r += row.props
RETURN count(r) AS written
