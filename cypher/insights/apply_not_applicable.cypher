// NOT_APPLICABLE (offline rules): the task could not have used the insight, so no evidence
// either way; only the audit record, which names the rule that decided. Safe to re-run.
MATCH (q:Query {space: $space, id: $query_id})
UNWIND $rows AS row
MATCH (i:Insight {space: $space, id: row.insight_id})
MERGE (e:InsightEdit {space: $space, id: row.edit_id})
ON CREATE SET e.insight_id = i.id, e.operation = 'NOT_APPLICABLE', e.query_id = q.id,
              e.actor = $actor, e.requested_by = $requested_by, e.reason = row.reason,
              e.at = $now
MERGE (e)-[:EDIT_OF]->(i)
RETURN count(e) AS edited
