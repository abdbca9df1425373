// Cosine of the query with each candidate fact unit's embedding: recall's common scale.
WITH toFloatList($embedding) AS query_vector
UNWIND $ids AS id
MATCH (u:MemoryUnit {space: $space, id: id})
WHERE u.embedding IS NOT NULL
RETURN u.id AS id, 2 * vector.similarity.cosine(u.embedding, query_vector) - 1 AS similarity
