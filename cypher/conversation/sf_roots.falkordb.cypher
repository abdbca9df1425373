// sf mode roots: entities closest to the query's entities (paper: top-5, cosine ≥ 0.75).
UNWIND $embeddings AS embedding
CALL db.idx.vector.queryNodes('Entity', 'embedding', $candidates, vecf32(embedding))
YIELD node, score
WITH node, 1 - score AS similarity
WHERE node.space = $space AND similarity >= $min_similarity
WITH node, max(similarity) AS similarity
ORDER BY similarity DESC, node.id
LIMIT $roots
RETURN node.id AS id, node.name AS name, node.type AS type, similarity
