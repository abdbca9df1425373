// Graphiti entities: :Entity plus their type labels, name, summary, group_id, created_at.
MATCH (n:Entity)
WHERE $group_id IS NULL OR n.group_id = $group_id
RETURN elementId(n) AS element_id, n.uuid AS uuid, n.name AS name, n.group_id AS group_id,
       labels(n) AS labels, n.summary AS summary, n.created_at AS created_at
ORDER BY element_id
