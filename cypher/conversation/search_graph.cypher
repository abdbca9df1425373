// Turns linked to the query's entities within two hops: a turn that mentions a query entity
// (hop 1), or one that mentions an entity RELATES-linked to it (hop 2, weighted $second_hop).
// Rare entities count more (1 / ln(2 + mentions)), as rare terms do in BM25; an entity in more
// than $max_mentions turns is a stopword of this space and is not a root; a second hop goes
// only through specific entities (at most $near_max_mentions turns). Fan-out is capped at
// every step so a hub cannot make the query slow.
UNWIND $keys AS key
MATCH (root:Entity {space: $space, name_key: key})
WHERE coalesce(root.mention_count, 0) <= $max_mentions
WITH root, 1.0 / log(2.0 + coalesce(root.mention_count, 1)) AS weight
OPTIONAL MATCH (root)<-[:MENTIONS]-(t1:Turn)
WITH root, weight, collect(DISTINCT t1)[..$fanout] AS direct
OPTIONAL MATCH (root)-[:RELATES]-(near:Entity)
WHERE coalesce(near.mention_count, 0) <= $near_max_mentions
WITH root, weight, direct, collect(DISTINCT near)[..$near_fanout] AS nears
UNWIND (CASE WHEN size(nears) = 0 THEN [null] ELSE nears END) AS near
OPTIONAL MATCH (near)<-[:MENTIONS]-(t2:Turn)
WITH root, weight, direct, collect(DISTINCT t2)[..$fanout] AS linked
WITH [t IN direct | {turn: t, score: weight, key: root.name}] +
     [t IN linked | {turn: t, score: weight * $second_hop, key: root.name}] AS pairs
UNWIND pairs AS pair
WITH pair.turn AS t, sum(pair.score) AS score, collect(DISTINCT pair.key) AS matched
ORDER BY score DESC, t.id
LIMIT $candidates
RETURN t.id AS id, t.session AS session, t.seq AS seq, t.speaker AS speaker, t.text AS text,
       t.time AS time, score, matched
