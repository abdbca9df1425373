// New vectors for turns, with the model that computed them.
UNWIND $rows AS row
MATCH (t:Turn {space: $space, id: row.id})
SET t.embedded_with = $model, t.context_embedded = true
WITH t, row
CALL db.create.setNodeVectorProperty(t, 'embedding', row.embedding)
RETURN count(t) AS written
