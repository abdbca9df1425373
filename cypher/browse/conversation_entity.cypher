// Browser view, conversation layer: one entity, the turns that mention it (first mentions
// first) and its two-hop RELATES neighbourhood, the subgraph the paper's retrieval expands.
MATCH (e:Entity {space: $space, id: $entity})
OPTIONAL MATCH (t:Turn)-[m:MENTIONS]->(e)
WITH e, t, m
ORDER BY t.created_turn
LIMIT $limit
WITH e, collect(t) AS turns, collect(m) AS mentions
OPTIONAL MATCH near = (e)-[:RELATES*1..2]-(:Entity)
WITH e, turns, mentions, near
LIMIT $limit
RETURN e AS entity, turns, mentions, collect(near) AS neighbourhood
