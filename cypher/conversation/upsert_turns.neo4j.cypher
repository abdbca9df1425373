// MATCH on the session: a turn is never stored without its session (sessions are written
// first). The session's `last_turn` (the space's clock) moves in the same statement as the
// turns that carry the new indexes, so a crash leaves the clock neither ahead of the stored
// turns (a re-run would skip indexes) nor behind them (it would hand them out twice). The
// HAS_TURN link's `complete` stays false until its mentions, relations and NEXT
// link are in. The mark is on the link, not the turn: FalkorDB 4.16 re-indexes a node's vector
// on any property write and leaves the old entry behind (docs/DEVELOPING.md, "Cypher rules").
// The vector is written as 32-bit floats (db.create.setNodeVectorProperty), as the model
// gives them: `SET` stores 64-bit ones, twice the bytes every rescore reads (docs/neo4j.md).
UNWIND $rows AS row
MATCH (s:Session {space: $space, id: row.session})
MERGE (t:Turn {space: $space, id: row.id})
ON CREATE SET t.created_at = $now, t.created_turn = row.turn_index, t.access_count = 0,
              t.last_access_turn = row.turn_index
SET t.session = row.session, t.seq = row.seq, t.speaker = row.speaker, t.text = row.text,
    t.time = row.time, t.n_terms = row.n_terms, t.stems = row.stems,
    t.metadata_json = row.metadata_json, t.content_hash = row.content_hash,
    t.context_embedded = true
WITH s, t, row
CALL db.create.setNodeVectorProperty(t, 'embedding', row.embedding)
MERGE (s)-[h:HAS_TURN]->(t)
SET h.complete = false
WITH s, count(t) AS written, max(row.turn_index) AS newest
SET s.last_turn = CASE WHEN s.last_turn IS NULL OR newest > s.last_turn THEN newest
                       ELSE s.last_turn END
RETURN sum(written) AS written
