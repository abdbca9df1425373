// Retrieval is an access: forgetting keeps what is used (paper: access frequency, recency).
UNWIND $ids AS id
MATCH (t:Entity {space: $space, id: id})
SET t.access_count = coalesce(t.access_count, 0) + 1, t.last_access = $now,
    t.last_access_turn = $clock
RETURN count(t) AS touched
