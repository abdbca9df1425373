// eq. 2 by an exact scan of the space, when the shared index returned too few of its queries
MATCH (q:Query)
WHERE q.space = $space AND q.embedding IS NOT NULL AND NOT q.id IN $exclude
WITH q, 1 - vec.cosineDistance(q.embedding, vecf32($embedding)) AS similarity
RETURN q.id AS id, similarity
ORDER BY similarity DESC, id
LIMIT $k
