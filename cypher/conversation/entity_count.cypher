MATCH (e:Entity {space: $space})
RETURN count(e) AS entities
