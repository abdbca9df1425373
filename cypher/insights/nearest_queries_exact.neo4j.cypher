// eq. 2 by an exact scan of the space, when the shared index returned too few of its queries
MATCH (q:Query)
WHERE q.space = $space AND q.embedding IS NOT NULL AND NOT q.id IN $exclude
WITH q, 2 * vector.similarity.cosine(q.embedding, $embedding) - 1 AS similarity
RETURN q.id AS id, similarity
ORDER BY similarity DESC, id
LIMIT $k
