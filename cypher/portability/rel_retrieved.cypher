UNWIND $rows AS row
MATCH (a:Query {space: $space, id: row.source})
MATCH (b:Insight {space: $space, id: row.target})
MERGE (a)-[r:RETRIEVED]->(b)
SET r += row.props
RETURN count(r) AS written
