// Dependency edges (E^dep, §3.1): from the supporting unit to the unit that depends on it.
UNWIND $rows AS row
MATCH (a:MemoryUnit {space: $space, id: row.source})
MATCH (b:MemoryUnit {space: $space, id: row.target})
MERGE (a)-[r:SUPPORTS]->(b)
ON CREATE SET r.created_at = $now
RETURN count(r) AS written
