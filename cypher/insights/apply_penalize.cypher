// PENALIZE (offline rules): the query joins each insight's negative evidence; it stays as it
// is otherwise. One audit record per edit; safe to re-run.
MATCH (q:Query {space: $space, id: $query_id})
UNWIND $rows AS row
MATCH (i:Insight {space: $space, id: row.insight_id})
MERGE (i)-[n:NEGATIVE]->(q)
ON CREATE SET n.at = $now, i.updated_at = $now
MERGE (e:InsightEdit {space: $space, id: row.edit_id})
ON CREATE SET e.insight_id = i.id, e.operation = 'PENALIZE', e.query_id = q.id,
              e.actor = $actor, e.requested_by = $requested_by, e.reason = row.reason,
              e.at = $now
MERGE (e)-[:EDIT_OF]->(i)
RETURN count(e) AS edited
