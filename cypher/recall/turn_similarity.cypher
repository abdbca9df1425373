// Cosine of the query with each candidate turn's embedding: recall's common relevance scale.
UNWIND $ids AS id
MATCH (t:Turn {space: $space, id: id})
WHERE t.embedding IS NOT NULL
RETURN t.id AS id, 2 * vector.similarity.cosine(t.embedding, toFloatList($embedding)) - 1 AS similarity
