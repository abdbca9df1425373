// nearest_tasks by an exact scan of the space, when the shared index returned too few
MATCH (node:Task)
WHERE node.space = $space AND node.embedding IS NOT NULL AND NOT node.id IN $exclude
      AND (node.has_expert = true OR NOT $experts_only)
WITH node, 1 - vec.cosineDistance(node.embedding, vecf32($embedding)) AS similarity
RETURN node.id AS id, node.text AS text, similarity, node.insights AS insights,
       node.workflow AS workflow, node.trajectories AS trajectories
ORDER BY similarity DESC, id
LIMIT $k
