// Active insights closest to a text: does an insight already cover it? (the ADD guard)
CALL db.index.vector.queryNodes('insights_insight_embedding', $candidates, $embedding)
YIELD node, score
WITH node, 2 * score - 1 AS similarity
WHERE node.space = $space AND node.active = true
RETURN node.id AS id, node.text AS text, similarity
ORDER BY similarity DESC, id
LIMIT $k
