// `complete` is on the HAS_TURN link; stores written before it was moved there keep it on the turn.
// A turn without `context_embedded` holds a vector of its own text only (an older graphmem).
UNWIND $ids AS id
MATCH (t:Turn {space: $space, id: id})
OPTIONAL MATCH (:Session {space: $space})-[h:HAS_TURN]->(t)
RETURN t.id AS id, t.content_hash AS content_hash, coalesce(h.complete, t.complete) AS complete,
       t.seq AS seq, t.created_turn AS created_turn, t.context_embedded AS context_embedded
