UNWIND $rows AS row
MATCH (a:Task {space: $space, id: row.source})
MATCH (b:Task {space: $space, id: row.target})
MERGE (a)-[s:SIMILAR_TASK]->(b)
SET s += row.props
RETURN count(s) AS written
