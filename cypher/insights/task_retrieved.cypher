// What retrieval returned for the task when it was recorded, with each insight as it is now
// (its whole evidence, and up to $evidence_limit query texts of each kind for the controller,
// with the task structure of each positive one: [key], null for a query stored before keys).
MATCH (q:Query {space: $space, id: $id})-[r:RETRIEVED]->(i:Insight)
WHERE i.space = $space
OPTIONAL MATCH (i)-[:POSITIVE]->(p:Query)
WITH r, i, collect(p.text) AS positives, collect([p.task_key]) AS positive_keys
OPTIONAL MATCH (i)-[:NEGATIVE]->(n:Query)
WITH r, i, positives, positive_keys, collect(n.text) AS negatives
RETURN i.id AS id, i.text AS text, i.active AS active, r.rank AS rank, r.score AS score,
       r.positive AS positive, r.negative AS negative,
       size(positives) AS positive_total, size(negatives) AS negative_total,
       positives[..$evidence_limit] AS positive_queries,
       positive_keys[..$evidence_limit] AS positive_keys,
       negatives[..$evidence_limit] AS negative_queries
ORDER BY rank
