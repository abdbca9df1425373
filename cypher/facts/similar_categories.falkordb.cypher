// Vector anchors (§3.2, eq. 5): Category nodes whose name is close to the given one.
CALL db.idx.vector.queryNodes('Category', 'embedding', $candidates, vecf32($embedding))
YIELD node, score
WITH node, 1 - score AS similarity
WHERE node.space = $space AND similarity >= $min_similarity
RETURN node.id AS id, similarity
ORDER BY similarity DESC
LIMIT $k
