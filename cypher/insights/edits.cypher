MATCH (i:Insight)
WHERE i.space = $space AND i.id IN $ids
MATCH (e:InsightEdit)-[:EDIT_OF]->(i)
WHERE e.space = $space
RETURN e.id AS id, e.insight_id AS insight_id, e.operation AS operation,
       e.query_id AS query_id, e.actor AS actor, e.requested_by AS requested_by,
       e.reason AS reason, e.at AS at, e.related_id AS related_id
ORDER BY at, id
