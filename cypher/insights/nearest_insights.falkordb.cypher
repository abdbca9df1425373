// Active insights closest to a text: does an insight already cover it? (the ADD guard)
CALL db.idx.vector.queryNodes('Insight', 'embedding', $candidates, vecf32($embedding))
YIELD node, score
WITH node, 1 - score AS similarity
WHERE node.space = $space AND node.active = true
RETURN node.id AS id, node.text AS text, similarity
ORDER BY similarity DESC, id
LIMIT $k
