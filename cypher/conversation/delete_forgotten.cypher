UNWIND $ids AS id
MATCH (f:Forgotten {space: $space, id: id})
DELETE f
RETURN count(*) AS deleted
