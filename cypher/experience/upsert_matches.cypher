// exploration → the expert it was compared with, carrying the edit path and common subgraph.
UNWIND $rows AS row
MATCH (a:Trajectory {space: $space, id: row.exploration})
MATCH (b:Trajectory {space: $space, id: row.expert})
MERGE (a)-[m:MATCHED_TO]->(b)
SET m += row.props
RETURN count(m) AS written
