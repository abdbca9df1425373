UNWIND $rows AS row
MATCH (a:Query {space: $space, id: row.source})
MATCH (b:InteractionStep {space: $space, id: row.target})
MERGE (a)-[r:HAS_INTERACTION]->(b)
SET r += row.props
RETURN count(r) AS written
