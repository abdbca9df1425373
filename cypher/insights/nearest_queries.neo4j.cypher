// eq. 2: top-k recorded queries by cosine similarity (the index holds every space: over-fetch)
CALL db.index.vector.queryNodes('insights_query_embedding', $candidates, $embedding)
YIELD node, score
WITH node, 2 * score - 1 AS similarity
WHERE node.space = $space AND NOT node.id IN $exclude
RETURN node.id AS id, similarity
ORDER BY similarity DESC, id
LIMIT $k
