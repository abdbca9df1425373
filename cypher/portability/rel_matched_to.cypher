UNWIND $rows AS row
MATCH (a:Trajectory {space: $space, id: row.source})
MATCH (b:Trajectory {space: $space, id: row.target})
MERGE (a)-[r:MATCHED_TO]->(b)
SET r += row.props
RETURN count(r) AS written
