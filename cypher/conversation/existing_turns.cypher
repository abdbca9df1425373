UNWIND $ids AS id
MATCH (t:Turn {space: $space, id: id})
RETURN t.id AS id, t.content_hash AS content_hash, t.complete AS complete, t.seq AS seq,
       t.created_turn AS created_turn
