// The Graphiti graph as the test compares it with what was migrated (run by
// graphiti_driver.py through Graphiti's own driver).
MATCH (a:Entity)-[r:RELATES_TO]->(b:Entity)
RETURN r.group_id AS group_id, a.name AS source, r.name AS relationship, b.name AS target,
       r.fact AS fact, r.valid_at.epochMillis AS valid_at, r.invalid_at.epochMillis AS invalid_at,
       r.expired_at.epochMillis AS expired_at, r.created_at.epochMillis AS created_at,
       r.episodes AS episodes
ORDER BY group_id, fact
