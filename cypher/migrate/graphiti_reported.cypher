// Graphiti communities and sagas per group: counted and reported, not imported as nodes.
MATCH (n)
WHERE (n:Community OR n:Saga) AND ($group_id IS NULL OR n.group_id = $group_id)
RETURN n.group_id AS group_id,
       CASE WHEN n:Community THEN 'communities' ELSE 'sagas' END AS kind, count(n) AS count
