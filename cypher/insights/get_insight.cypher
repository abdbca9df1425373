MATCH (i:Insight {space: $space, id: $id})
OPTIONAL MATCH (i)-[:POSITIVE]->(p:Query)
WITH i, count(p) AS positive
OPTIONAL MATCH (i)-[:NEGATIVE]->(n:Query)
WITH i, positive, count(n) AS negative
RETURN i.id AS id, i.text AS text, i.active AS active, i.created_at AS created_at,
       i.updated_at AS updated_at, i.archived_at AS archived_at, positive, negative
