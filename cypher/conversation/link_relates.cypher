// Keyed: one edge per (source turn, type, endpoints), so re-ingesting a turn stores it once.
UNWIND $rows AS row
MATCH (a:Entity {space: $space, id: row.source})
MATCH (b:Entity {space: $space, id: row.target})
MERGE (a)-[r:RELATES {id: row.id}]->(b)
SET r.type = row.type, r.fact = row.fact, r.turn_id = row.turn, r.session = row.session,
    r.time = row.time
RETURN count(r) AS written
