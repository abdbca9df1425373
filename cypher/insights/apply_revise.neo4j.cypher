// REVISE (eq. 14-15) as one statement, so the old insight is never archived without its
// successor: the new active node gets the old positive evidence plus this query and points
// REVISED_FROM the old one; the old node gets this query as negative evidence and is
// deactivated; eq. 18's CONTEXTUALIZES edges come from $context; each node gets an audit
// record. Safe to re-run.
MATCH (old:Insight {space: $space, id: $old_id})
MATCH (q:Query {space: $space, id: $query_id})
OPTIONAL MATCH (old)-[:POSITIVE]->(support:Query)
WITH old, q, collect(support) AS supports
MERGE (new:Insight {space: $space, id: $id})
ON CREATE SET new.text = $text, new.active = true, new.created_at = $now,
              new.updated_at = $now, new.origin = 'revision'
WITH old, q, supports, new
CALL (new) {
  WITH new WHERE new.embedding IS NULL  // a new insight
  CALL db.create.setNodeVectorProperty(new, 'embedding', $embedding)
}
MERGE (new)-[:REVISED_FROM]->(old)
MERGE (new)-[pq:POSITIVE]->(q)
ON CREATE SET pq.at = $now
FOREACH (s IN supports |
  MERGE (new)-[ps:POSITIVE]->(s)
  ON CREATE SET ps.at = $now
)
MERGE (old)-[nq:NEGATIVE]->(q)
ON CREATE SET nq.at = $now, old.updated_at = $now
SET old.active = false, old.archived_at = coalesce(old.archived_at, $now)
MERGE (made:InsightEdit {space: $space, id: $created_edit_id})
ON CREATE SET made.insight_id = $id, made.operation = 'CREATE_REVISION',
              made.query_id = $query_id, made.actor = $actor,
              made.requested_by = $requested_by, made.reason = $reason, made.at = $now,
              made.related_id = $old_id
MERGE (made)-[:EDIT_OF]->(new)
MERGE (gone:InsightEdit {space: $space, id: $archived_edit_id})
ON CREATE SET gone.insight_id = $old_id, gone.operation = 'REVISE',
              gone.query_id = $query_id, gone.actor = $actor,
              gone.requested_by = $requested_by, gone.reason = $reason, gone.at = $now,
              gone.related_id = $id
MERGE (gone)-[:EDIT_OF]->(old)
WITH new
UNWIND CASE WHEN size($context) = 0 THEN [null] ELSE $context END AS ctx
OPTIONAL MATCH (a:Insight {space: $space, id: ctx.insight_id})
FOREACH (x IN CASE WHEN a IS NULL THEN [] ELSE [a] END |
  MERGE (x)-[c:CONTEXTUALIZES {id: ctx.id}]->(new)
  ON CREATE SET c.query_id = $query_id, c.at = $now
)
WITH DISTINCT new
RETURN new.id AS id
