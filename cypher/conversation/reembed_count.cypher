// How many embedded nodes of a space are not on $model yet, by label; a node without
// `embedded_with` holds a vector from the graph's recorded model, $recorded. A turn without
// `context_embedded` was embedded without the turn before it (reembed_turns_todo.cypher).
MATCH (n {space: $space})
WHERE n.embedding IS NOT NULL
  AND (coalesce(n.embedded_with, $recorded) <> $model
       OR (n:Turn AND n.context_embedded IS NULL))
RETURN labels(n)[0] AS label, count(n) AS nodes
