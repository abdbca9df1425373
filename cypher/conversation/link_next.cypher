UNWIND $rows AS row
MATCH (a:Turn {space: $space, id: row.prev})
MATCH (b:Turn {space: $space, id: row.id})
MERGE (a)-[r:NEXT]->(b)
RETURN count(r) AS written
