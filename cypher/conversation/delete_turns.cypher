UNWIND $ids AS id
MATCH (n:Turn {space: $space, id: id})
DETACH DELETE n
RETURN count(*) AS deleted
