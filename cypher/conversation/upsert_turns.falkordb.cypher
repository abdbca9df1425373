// MATCH on the session: a turn is never stored without its session (sessions are written
// first), and its HAS_TURN link's `complete` stays false until its mentions, relations and NEXT
// link are in. The mark is on the link, not the turn: FalkorDB 4.16 re-indexes a node's vector
// on any property write and leaves the old entry behind (docs/DEVELOPING.md, "Cypher rules").
// FalkorDB 4.16 keeps a vector attribute's old value when a new vecf32 is assigned over it:
// clear it first (docs/DEVELOPING.md, "Cypher rules").
UNWIND $rows AS row
MATCH (s:Session {space: $space, id: row.session})
MERGE (t:Turn {space: $space, id: row.id})
ON CREATE SET t.created_at = $now, t.created_turn = row.turn_index, t.access_count = 0,
              t.last_access_turn = row.turn_index
SET t.session = row.session, t.seq = row.seq, t.speaker = row.speaker, t.text = row.text,
    t.time = row.time, t.n_terms = row.n_terms, t.metadata_json = row.metadata_json,
    t.content_hash = row.content_hash, t.embedding = null
WITH s, t, row
SET t.embedding = vecf32(row.embedding)
MERGE (s)-[h:HAS_TURN]->(t)
SET h.complete = false
RETURN count(t) AS written
