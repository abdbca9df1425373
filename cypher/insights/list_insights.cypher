MATCH (i:Insight)
WHERE i.space = $space AND (i.active = true OR $include_archived)
OPTIONAL MATCH (i)-[:POSITIVE]->(p:Query)
WITH i, count(p) AS positive
OPTIONAL MATCH (i)-[:NEGATIVE]->(n:Query)
WITH i, positive, count(n) AS negative
RETURN i.id AS id, i.text AS text, i.active AS active, i.created_at AS created_at,
       i.updated_at AS updated_at, i.archived_at AS archived_at, positive, negative
ORDER BY created_at, id
LIMIT $limit
