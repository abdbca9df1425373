// Active units close to a question (anchors for a question whose subject is not named exactly).
CALL db.idx.vector.queryNodes('MemoryUnit', 'embedding', $candidates, vecf32($embedding))
YIELD node, score
WITH node, 1 - score AS similarity
WHERE node.space = $space AND node.status = 'active' AND similarity >= $min_similarity
RETURN node.id AS id, node.subject_key AS subject, node.category_key AS category, similarity
ORDER BY similarity DESC
LIMIT $k
