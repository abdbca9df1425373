// The mark goes on the HAS_TURN link, so the turn node (vector-indexed) is not written again.
// The turn is matched first, by its key: FalkorDB would otherwise walk every session's turns.
UNWIND $ids AS id
MATCH (t:Turn {space: $space, id: id})
MATCH (t)<-[h:HAS_TURN]-(:Session)
SET h.complete = true
RETURN count(t) AS written
