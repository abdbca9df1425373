// Spreading activation over Turn–MENTIONS–Entity, seeded by turns (personalised PageRank cut
// at two steps, as HippoRAG 2 seeds passage nodes with their retrieval scores): each seed turn
// passes its weight to the entities it mentions, and each entity to the other turns that
// mention it. Every pass through an entity is damped by 1 / ln(2 + mentions), so a hub (a
// word in every session) carries little; entities in more than $max_mentions turns, or in
// fewer than two, pass nothing. A turn is never credited through its own mentions. When the
// question names participants ($speakers), only their turns are reached.
// The seed turns are matched on their own first: FalkorDB plans the combined pattern from
// the Entity side (a label scan per seed).
UNWIND $seeds AS seed
MATCH (s:Turn {space: $space, id: seed.id})
WITH s, seed.weight AS weight
MATCH (s)-[:MENTIONS]->(e:Entity)
WITH s, weight, e
WHERE coalesce(e.mention_count, 0) >= 2 AND e.mention_count <= $max_mentions
WITH s.id AS source, e, weight / log(2.0 + e.mention_count) AS activation
MATCH (e)<-[:MENTIONS]-(t:Turn)
WHERE t.id <> source AND (size($speakers) = 0 OR t.speaker IN $speakers)
WITH t, e, sum(activation) / log(2.0 + e.mention_count) AS passed
WITH t, sum(passed) AS score, collect(e.name) AS matched
ORDER BY score DESC, t.id
LIMIT $candidates
RETURN t.id AS id, t.session AS session, t.seq AS seq, t.speaker AS speaker, t.text AS text,
       t.time AS time, score, matched
