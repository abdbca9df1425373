UNWIND $rows AS row
MATCH (a:Entity {space: $space, id: row.source})
MATCH (b:Entity {space: $space, id: row.target})
MERGE (a)-[r:RELATES {id: row.props.id}]->(b)
SET r += row.props
RETURN count(r) AS written
