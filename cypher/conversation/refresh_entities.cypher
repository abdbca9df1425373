UNWIND $ids AS id
MATCH (e:Entity {space: $space, id: id})
OPTIONAL MATCH (t:Turn)-[:MENTIONS]->(e)
WITH e, count(t) AS mentions, max(t.created_turn) AS last
SET e.mention_count = mentions,
    e.last_turn = CASE WHEN last IS NULL THEN e.last_turn ELSE last END
RETURN count(e) AS written
