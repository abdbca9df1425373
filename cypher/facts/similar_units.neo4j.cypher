// Active units close to a question (anchors for a question whose subject is not named exactly).
CALL db.index.vector.queryNodes('facts_memory_unit_embedding', $candidates, $embedding)
YIELD node, score
WITH node, 2 * score - 1 AS similarity
WHERE node.space = $space AND node.status = 'active' AND similarity >= $min_similarity
RETURN node.id AS id, node.subject_key AS subject, node.category_key AS category, similarity
ORDER BY similarity DESC
LIMIT $k
