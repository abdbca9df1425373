// Exact anchors (§3.2, eq. 5): which of these normalised names are Category nodes.
UNWIND $keys AS key
MATCH (c:Category {space: $space, id: key})
RETURN c.id AS id, c.name AS name
