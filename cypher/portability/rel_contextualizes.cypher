UNWIND $rows AS row
MATCH (a:Insight {space: $space, id: row.source})
MATCH (b:Insight {space: $space, id: row.target})
MERGE (a)-[r:CONTEXTUALIZES {id: row.props.id}]->(b)
SET r += row.props
RETURN count(r) AS written
