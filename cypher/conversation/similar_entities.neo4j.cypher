// De-duplication by embedding (paper: cosine ≥ τ_dedup): the closest stored entity per name.
UNWIND $rows AS row
CALL db.index.vector.queryNodes('entity_embedding', $candidates, row.embedding)
YIELD node, score
WITH row, node, 2 * score - 1 AS similarity
WHERE node.space = $space AND similarity >= $threshold
WITH row, node, similarity
ORDER BY similarity DESC
WITH row, collect({id: node.id, name: node.name, similarity: similarity})[0] AS best
RETURN row.key AS key, best.id AS id, best.name AS name, best.similarity AS similarity
