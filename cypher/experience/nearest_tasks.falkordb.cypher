// §4.3: top-k tasks by cosine similarity (the index holds every space: over-fetch)
CALL db.idx.vector.queryNodes('Task', 'embedding', $candidates, vecf32($embedding))
YIELD node, score
WITH node, 1 - score AS similarity
WHERE node.space = $space AND NOT node.id IN $exclude
      AND (node.has_expert = true OR NOT $experts_only)
RETURN node.id AS id, node.text AS text, similarity, node.insights AS insights,
       node.workflow AS workflow, node.trajectories AS trajectories
ORDER BY similarity DESC, id
LIMIT $k
