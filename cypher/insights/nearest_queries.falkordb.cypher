// eq. 2: top-k recorded queries by cosine similarity (the index holds every space: over-fetch)
CALL db.idx.vector.queryNodes('Query', 'embedding', $candidates, vecf32($embedding))
YIELD node, score
WITH node, 1 - score AS similarity
WHERE node.space = $space AND NOT node.id IN $exclude
RETURN node.id AS id, similarity
ORDER BY similarity DESC, id
LIMIT $k
