// `graphmem browse`: the subject a MicroGraph view shows — the one whose id or name is
// $subject (case-insensitive), else the one with the most dependency edges, then units.
MATCH (s:Subject {space: $space})-[:SUBJECT_OF]->(u:MemoryUnit)
WHERE $subject IS NULL OR s.id = $subject OR toLower(s.name) = toLower($subject)
OPTIONAL MATCH (u)-[d:SUPPORTS]-(:MemoryUnit)
WITH s, count(DISTINCT u) AS size, count(d) AS links
RETURN s.id AS id, s.name AS name, size
ORDER BY links DESC, size DESC, id
LIMIT 1
