// Vector anchors (§3.2, eq. 5): Subject nodes whose name is close to the given one.
CALL db.index.vector.queryNodes('facts_subject_embedding', $candidates, $embedding)
YIELD node, score
WITH node, 2 * score - 1 AS similarity
WHERE node.space = $space AND similarity >= $min_similarity
RETURN node.id AS id, similarity
ORDER BY similarity DESC
LIMIT $k
