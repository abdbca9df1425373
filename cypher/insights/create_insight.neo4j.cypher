// ADD (eq. 16), or an insight added by hand: a new active node whose positive evidence is
// $evidence, its audit record, and eq. 18's CONTEXTUALIZES edges from $context (the insights
// retrieved for a resolved task), all in one statement. Safe to re-run.
MERGE (i:Insight {space: $space, id: $id})
ON CREATE SET i.text = $text, i.active = true, i.created_at = $now, i.updated_at = $now,
              i.origin = $origin
WITH i
CALL (i) {
  WITH i WHERE i.embedding IS NULL  // a new insight
  CALL db.create.setNodeVectorProperty(i, 'embedding', $embedding)
}
MERGE (e:InsightEdit {space: $space, id: $edit_id})
ON CREATE SET e.insight_id = $id, e.operation = 'ADD', e.query_id = $query_id,
              e.actor = $actor, e.requested_by = $requested_by, e.reason = $reason,
              e.at = $now
MERGE (e)-[:EDIT_OF]->(i)
WITH i
UNWIND CASE WHEN size($evidence) = 0 THEN [null] ELSE $evidence END AS evidence_id
OPTIONAL MATCH (q:Query {space: $space, id: evidence_id})
FOREACH (x IN CASE WHEN q IS NULL THEN [] ELSE [q] END |
  MERGE (i)-[p:POSITIVE]->(x)
  ON CREATE SET p.at = $now
)
WITH DISTINCT i
UNWIND CASE WHEN size($context) = 0 THEN [null] ELSE $context END AS ctx
OPTIONAL MATCH (a:Insight {space: $space, id: ctx.insight_id})
FOREACH (x IN CASE WHEN a IS NULL THEN [] ELSE [a] END |
  MERGE (x)-[c:CONTEXTUALIZES {id: ctx.id}]->(i)
  ON CREATE SET c.query_id = $query_id, c.at = $now
)
WITH DISTINCT i
RETURN i.id AS id
