// Retrieval is an access: forgetting keeps what is used (paper: access frequency, recency).
// The counts go on the HAS_TURN link, not on the vector-indexed turn (FalkorDB orphans a node's
// vector on every write to it: docs/DEVELOPING.md); a turn counted before carries its count over.
// The turn is matched first, by its key: FalkorDB would otherwise walk every session's turns.
UNWIND $ids AS id
MATCH (t:Turn {space: $space, id: id})
MATCH (t)<-[h:HAS_TURN]-(:Session)
SET h.access_count = coalesce(h.access_count, t.access_count, 0) + 1, h.last_access = $now,
    h.last_access_turn = $clock
RETURN count(t) AS touched
