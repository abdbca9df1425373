// §4.3: top-k tasks by cosine similarity (the index holds every space: over-fetch)
CALL db.index.vector.queryNodes('experience_task_embedding', $candidates, $embedding)
YIELD node, score
WITH node, 2 * score - 1 AS similarity
WHERE node.space = $space AND NOT node.id IN $exclude
      AND (node.has_expert = true OR NOT $experts_only)
RETURN node.id AS id, node.text AS text, similarity, node.insights AS insights,
       node.workflow AS workflow, node.trajectories AS trajectories
ORDER BY similarity DESC, id
LIMIT $k
