UNWIND $keys AS key
MATCH (e:Entity {space: $space, name_key: key})
RETURN key, e.id AS id, e.name AS name
