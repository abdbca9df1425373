// Spaces with embedded nodes whose vector is not from $model (a node without
// `embedded_with` holds one from the graph's recorded model, $recorded).
MATCH (n)
WHERE n.embedding IS NOT NULL AND coalesce(n.embedded_with, $recorded) <> $model
RETURN n.space AS space, count(n) AS nodes
ORDER BY space
