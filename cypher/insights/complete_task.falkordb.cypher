// FalkorDB 4.16 keeps a vector attribute's old value when a new vecf32 is assigned over it:
// clear it first (docs/DEVELOPING.md, "Cypher rules").
// Last step of recording: the embedding (which makes the query retrievable) and the
// similarity edges to its nearest earlier queries, in one statement.
MATCH (q:Query {space: $space, id: $id})
SET q.embedding = null, q.recorded_at = coalesce(q.recorded_at, $now)
WITH q
SET q.embedding = vecf32($embedding)
WITH q
UNWIND $similar AS near
MATCH (p:Query {space: $space, id: near.id})
MERGE (q)-[r:SIMILAR_QUERY]->(p)
SET r.similarity = near.similarity
RETURN count(r) AS linked
