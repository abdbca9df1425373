// The entity's mention counter moves only when the edge is new, so a re-run counts nothing
// twice (forgetting and restore recount from the edges: refresh_entities).
UNWIND $rows AS row
MATCH (t:Turn {space: $space, id: row.turn})
MATCH (e:Entity {space: $space, id: row.entity})
MERGE (t)-[m:MENTIONS]->(e)
ON CREATE SET e.mention_count = coalesce(e.mention_count, 0) + 1
SET m.surface = row.surface,
    e.last_turn = CASE WHEN coalesce(e.last_turn, -1) < row.turn_index
                       THEN row.turn_index ELSE e.last_turn END
RETURN count(m) AS written
