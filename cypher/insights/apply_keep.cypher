// KEEP (eq. 17): the query joins each insight's positive evidence. An insight archived since
// it was retrieved stays archived. One audit record per edit; safe to re-run.
MATCH (q:Query {space: $space, id: $query_id})
UNWIND $rows AS row
MATCH (i:Insight {space: $space, id: row.insight_id})
MERGE (i)-[p:POSITIVE]->(q)
ON CREATE SET p.at = $now, i.updated_at = $now
MERGE (e:InsightEdit {space: $space, id: row.edit_id})
ON CREATE SET e.insight_id = i.id, e.operation = 'KEEP', e.query_id = q.id, e.actor = $actor,
              e.requested_by = $requested_by, e.reason = row.reason, e.at = $now
MERGE (e)-[:EDIT_OF]->(i)
RETURN count(e) AS edited
