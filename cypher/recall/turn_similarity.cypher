// Cosine of the query with each candidate turn's embedding: recall's common relevance scale.
WITH toFloatList($embedding) AS query_vector
UNWIND $ids AS id
MATCH (t:Turn {space: $space, id: id})
WHERE t.embedding IS NOT NULL
RETURN t.id AS id, 2 * vector.similarity.cosine(t.embedding, query_vector) - 1 AS similarity
