// Mem0 graph-store entities: nodes with a user_id (or labelled __Entity__) that are not
// graphmem's own (no `space`) nor Graphiti's (no `uuid`). Read-only.
MATCH (n)
WHERE n.space IS NULL AND n.uuid IS NULL
  AND (n.user_id IS NOT NULL OR '__Entity__' IN labels(n))
  AND ($user_id IS NULL OR n.user_id = $user_id OR n.user_id IS NULL)
RETURN elementId(n) AS element_id, labels(n) AS labels, n.name AS name,
       n.user_id AS user_id, n.agent_id AS agent_id, n.run_id AS run_id,
       n.created AS created, n.mentions AS mentions
ORDER BY element_id
