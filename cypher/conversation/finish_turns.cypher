// The mark goes on the HAS_TURN link, so the turn node (vector-indexed) is not written again.
UNWIND $ids AS id
MATCH (:Session {space: $space})-[h:HAS_TURN]->(t:Turn {space: $space, id: id})
SET h.complete = true
RETURN count(t) AS written
