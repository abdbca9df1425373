UNWIND $rows AS row
MATCH (t:Turn {space: $space, id: row.id})
SET t.stems = row.stems
RETURN count(t) AS written
