// New vectors for entities, with the model that computed them.
UNWIND $rows AS row
MATCH (e:Entity {space: $space, id: row.id})
SET e.embedded_with = $model
WITH e, row
CALL db.create.setNodeVectorProperty(e, 'embedding', row.embedding)
RETURN count(e) AS written
