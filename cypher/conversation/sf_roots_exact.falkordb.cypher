UNWIND $embeddings AS embedding
MATCH (node:Entity {space: $space})
WHERE node.embedding IS NOT NULL
WITH node, 1 - vec.cosineDistance(node.embedding, vecf32(embedding)) AS similarity
WHERE similarity >= $min_similarity
WITH node, max(similarity) AS similarity
ORDER BY similarity DESC, node.id
LIMIT $roots
RETURN node.id AS id, node.name AS name, node.type AS type, similarity
