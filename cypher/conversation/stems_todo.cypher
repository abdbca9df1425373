// Turns of a space stored before Turn.stems existed (migration 105, an import of an older
// dump): a batch of them, for Python to compute their full-text entries.
MATCH (t:Turn {space: $space})
WHERE t.stems IS NULL
RETURN t.id AS id, t.text AS text
LIMIT $batch
