// The ADD guard: the active insight of the space closest to a text. An exact scan of the
// space, not the shared vector index: the index's nearest neighbours can all belong to other
// spaces, and a missed duplicate would be stored twice.
MATCH (i:Insight)
WHERE i.space = $space AND i.active = true AND i.embedding IS NOT NULL
WITH i, 2 * vector.similarity.cosine(i.embedding, $embedding) - 1 AS similarity
RETURN i.id AS id, i.text AS text, similarity
ORDER BY similarity DESC, id
LIMIT 1
