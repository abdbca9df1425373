// Last step of recording: the embedding (which makes the query retrievable) and the
// similarity edges to its nearest earlier queries, in one statement.
MATCH (q:Query {space: $space, id: $id})
SET q.recorded_at = coalesce(q.recorded_at, $now)
WITH q
CALL db.create.setNodeVectorProperty(q, 'embedding', $embedding)
UNWIND $similar AS near
MATCH (p:Query {space: $space, id: near.id})
MERGE (q)-[r:SIMILAR_QUERY]->(p)
SET r.similarity = near.similarity
RETURN count(r) AS linked
