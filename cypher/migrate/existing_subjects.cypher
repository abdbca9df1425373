// Which of these Subjects (entity keys) a space already holds.
UNWIND $keys AS key
MATCH (s:Subject {space: $space, id: key})
RETURN s.id AS key
