// A batch of a space's entities whose vector is not from $model yet (an entity without
// `embedded_with` holds one from the graph's recorded model, $recorded), with the text
// ingestion embeds: the name.
MATCH (e:Entity {space: $space})
WHERE e.embedding IS NOT NULL AND coalesce(e.embedded_with, $recorded) <> $model
RETURN e.id AS id, e.name AS text
LIMIT $limit
