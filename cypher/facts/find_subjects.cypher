// Exact anchors (§3.2, eq. 5): which of these normalised names are Subject nodes.
UNWIND $keys AS key
MATCH (s:Subject {space: $space, id: key})
RETURN s.id AS id, s.name AS name
