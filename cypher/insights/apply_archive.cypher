// ARCHIVE (eq. 13): the query joins each insight's negative evidence and the node is
// deactivated (z_k = 0); it stays in the graph for audit. Safe to re-run.
MATCH (q:Query {space: $space, id: $query_id})
UNWIND $rows AS row
MATCH (i:Insight {space: $space, id: row.insight_id})
MERGE (i)-[n:NEGATIVE]->(q)
ON CREATE SET n.at = $now, i.updated_at = $now
SET i.active = false, i.archived_at = coalesce(i.archived_at, $now)
MERGE (e:InsightEdit {space: $space, id: row.edit_id})
ON CREATE SET e.insight_id = i.id, e.operation = 'ARCHIVE', e.query_id = q.id,
              e.actor = $actor, e.requested_by = $requested_by, e.reason = row.reason,
              e.at = $now
MERGE (e)-[:EDIT_OF]->(i)
RETURN count(e) AS edited
