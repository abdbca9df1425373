// Graphiti facts (edge_db_queries: RELATES_TO with uuid, name, fact, group_id, episodes,
// created_at, expired_at, valid_at, invalid_at) and their two entities.
MATCH (a:Entity)-[r:RELATES_TO]->(b:Entity)
WHERE $group_id IS NULL OR r.group_id = $group_id
RETURN elementId(r) AS element_id, r.uuid AS uuid, r.name AS name, r.fact AS fact,
       r.group_id AS group_id, r.episodes AS episodes, r.created_at AS created_at,
       r.expired_at AS expired_at, r.valid_at AS valid_at, r.invalid_at AS invalid_at,
       a.name AS source_name, labels(a) AS source_labels, a.group_id AS source_group,
       b.name AS target_name, b.group_id AS target_group
ORDER BY element_id
