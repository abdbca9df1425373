// Which of these normalised phrases are Context nodes (a question's condition, §3.2).
UNWIND $keys AS key
MATCH (x:Context {space: $space, id: key})
RETURN x.id AS id, x.name AS name
