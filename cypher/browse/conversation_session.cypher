// Browser view, conversation layer: one session's turns in order (HAS_TURN, NEXT), the
// entities they mention (MENTIONS) and the attributed RELATES edges between those entities.
MATCH (s:Session {space: $space, id: $session})-[h:HAS_TURN]->(t:Turn)
WITH s, h, t
ORDER BY t.seq
LIMIT $limit
WITH s, collect(h) AS has_turn, collect(t) AS turns
UNWIND turns AS t
OPTIONAL MATCH (t)-[n:NEXT]->(after:Turn)
WHERE after IN turns
OPTIONAL MATCH (t)-[m:MENTIONS]->(e:Entity)
WITH s, has_turn, turns, collect(DISTINCT n) AS next, collect(DISTINCT m) AS mentions,
     collect(DISTINCT e) AS entities
UNWIND (CASE WHEN size(entities) = 0 THEN [null] ELSE entities END) AS e
OPTIONAL MATCH (e)-[r:RELATES]->(other:Entity)
WHERE other IN entities
RETURN s AS session, turns, entities, has_turn, next, mentions, collect(DISTINCT r) AS relates
