// sf mode roots: entities closest to the query's entities (paper: top-5, cosine ≥ 0.75).
UNWIND $embeddings AS embedding
CALL db.index.vector.queryNodes('entity_embedding', $candidates, embedding) YIELD node, score
WITH node, 2 * score - 1 AS similarity
WHERE node.space = $space AND similarity >= $min_similarity
WITH node, max(similarity) AS similarity
ORDER BY similarity DESC, node.id
LIMIT $roots
RETURN node.id AS id, node.name AS name, node.type AS type, similarity
