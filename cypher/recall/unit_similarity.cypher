// Cosine of the query with each candidate fact unit's embedding: recall's common scale.
UNWIND $ids AS id
MATCH (u:MemoryUnit {space: $space, id: id})
WHERE u.embedding IS NOT NULL
RETURN u.id AS id, 2 * vector.similarity.cosine(u.embedding, toFloatList($embedding)) - 1 AS similarity
