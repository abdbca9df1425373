// The Mem0 graph as the test compares it with what was migrated (run by mem0_driver.py
// through Mem0's own Neo4j connection).
MATCH (a)-[r]->(b)
WHERE a.user_id IS NOT NULL
RETURN a.user_id AS user_id, a.name AS source, type(r) AS relationship, b.name AS target,
       coalesce(r.created_at, r.created) AS created_at, r.valid AS valid,
       r.invalidated_at.epochMillis AS invalidated_at
ORDER BY user_id, source, relationship, target
