UNWIND $ids AS id
MATCH (n:Entity {space: $space, id: id})
DETACH DELETE n
RETURN count(*) AS deleted
