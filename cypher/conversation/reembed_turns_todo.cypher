// A batch of a space's turns whose vector is not from $model yet (a turn without
// `embedded_with` holds one from the graph's recorded model, $recorded), with the text
// ingestion embeds: "speaker: text".
MATCH (t:Turn {space: $space})
WHERE t.embedding IS NOT NULL AND coalesce(t.embedded_with, $recorded) <> $model
RETURN t.id AS id, t.speaker AS speaker, t.text AS text
LIMIT $limit
