UNWIND $rows AS row
MATCH (a:Insight {space: $space, id: row.source})
MATCH (b:Query {space: $space, id: row.target})
MERGE (a)-[r:POSITIVE]->(b)
SET r += row.props
RETURN count(r) AS written
