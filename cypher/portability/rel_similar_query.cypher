UNWIND $rows AS row
MATCH (a:Query {space: $space, id: row.source})
MATCH (b:Query {space: $space, id: row.target})
MERGE (a)-[r:SIMILAR_QUERY]->(b)
SET r += row.props
RETURN count(r) AS written
