// The concept source: turns that mention entities whose names are close, in embedding space,
// to the query's words ($entities: [{id, weight}], the weight the best cosine of a query word
// or of the whole query with the entity's name, looked up over the entity vector index
// beforehand). A category word ("instruments", "pets") reaches instances named in turns
// ("clarinet", "a cat named Bailey") that share no word with the question. As in the graph
// source, rare entities count more (1 / ln(2 + mentions)) and an entity in more than
// $max_mentions turns passes nothing; when the question names participants ($speakers) only
// their turns are reached. A turn's score is the sum over the entities it mentions.
UNWIND $entities AS ent
MATCH (e:Entity {space: $space, id: ent.id})
WHERE coalesce(e.mention_count, 0) <= $max_mentions
WITH e, ent.weight / log(2.0 + coalesce(e.mention_count, 1)) AS weight
MATCH (e)<-[:MENTIONS]-(t:Turn)
WHERE size($speakers) = 0 OR t.speaker IN $speakers
WITH t, sum(weight) AS score, collect(e.name) AS matched
ORDER BY score DESC, t.id
LIMIT $candidates
RETURN t.id AS id, t.session AS session, t.seq AS seq, t.speaker AS speaker, t.text AS text,
       t.time AS time, score, matched
