// Graphiti MENTIONS: which entities each episode mentions.
MATCH (e:Episodic)-[r:MENTIONS]->(n:Entity)
WHERE $group_id IS NULL OR e.group_id = $group_id
RETURN elementId(r) AS element_id, e.uuid AS episode, n.name AS entity, e.group_id AS group_id
ORDER BY element_id
