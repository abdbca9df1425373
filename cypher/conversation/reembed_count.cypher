// How many embedded nodes of a space are not on $model yet, by label; a node without
// `embedded_with` holds a vector from the graph's recorded model, $recorded.
MATCH (n {space: $space})
WHERE n.embedding IS NOT NULL AND coalesce(n.embedded_with, $recorded) <> $model
RETURN labels(n)[0] AS label, count(n) AS nodes
