// Migration 103: every session keeps the newest turn index of its turns (`last_turn`), so the
// space's clock is read from its sessions instead of a scan of every turn.
MATCH (s:Session)
WHERE s.last_turn IS NULL
OPTIONAL MATCH (s)-[:HAS_TURN]->(t:Turn)
WITH s, max(t.created_turn) AS newest
SET s.last_turn = newest
RETURN count(s) AS written
