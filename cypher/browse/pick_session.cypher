// `graphmem browse`: the session a view shows — the one named by $session, else the longest.
MATCH (s:Session {space: $space})
WHERE $session IS NULL OR s.id = $session
RETURN s.id AS id, coalesce(s.turn_count, 0) AS size
ORDER BY size DESC, id
LIMIT 1
