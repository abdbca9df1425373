// The subgraph's edges (parallel RELATES edges repeat a fact per turn: at most $limit).
MATCH (a:Entity {space: $space})-[r:RELATES]->(b:Entity {space: $space})
WHERE a.id IN $ids AND b.id IN $ids
RETURN a.id AS source, b.id AS target, r.type AS type, r.fact AS fact, r.turn_id AS turn_id
ORDER BY source, target, r.id
LIMIT $limit
