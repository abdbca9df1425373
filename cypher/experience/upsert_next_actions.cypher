UNWIND $rows AS row
MATCH (a:Action {space: $space, id: row.source})
MATCH (b:Action {space: $space, id: row.target})
MERGE (a)-[n:NEXT_ACTION {id: row.id}]->(b)
SET n += row.props
RETURN count(n) AS written
