UNWIND $rows AS row
MATCH (a:Action {space: $space, id: row.source})
MATCH (b:Action {space: $space, id: row.target})
MERGE (a)-[r:NEXT_ACTION {id: row.props.id}]->(b)
SET r += row.props
RETURN count(r) AS written
