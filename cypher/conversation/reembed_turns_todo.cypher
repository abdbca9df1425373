// A batch of a space's turns whose vector is not from $model yet (a turn without
// `embedded_with` holds one from the graph's recorded model, $recorded), or was embedded
// without the turn before it (no `context_embedded`: stored by an older graphmem), with what
// ingestion embeds: "speaker: text", then the previous turn's. The batch is cut before the
// OPTIONAL MATCH: FalkorDB 4.16 repeats rows when a LIMIT follows one.
MATCH (t:Turn {space: $space})
WHERE t.embedding IS NOT NULL
  AND (coalesce(t.embedded_with, $recorded) <> $model OR t.context_embedded IS NULL)
WITH t
LIMIT $limit
OPTIONAL MATCH (p:Turn)-[:NEXT]->(t)
RETURN t.id AS id, t.speaker AS speaker, t.text AS text, p.speaker AS previous_speaker,
       p.text AS previous_text
