UNWIND $ids AS id
MATCH (t:Turn {space: $space, id: id})
SET t.complete = true
RETURN count(t) AS written
