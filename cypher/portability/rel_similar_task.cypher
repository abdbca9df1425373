UNWIND $rows AS row
MATCH (a:Task {space: $space, id: row.source})
MATCH (b:Task {space: $space, id: row.target})
MERGE (a)-[r:SIMILAR_TASK]->(b)
SET r += row.props
RETURN count(r) AS written
