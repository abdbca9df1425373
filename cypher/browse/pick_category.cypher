// `graphmem browse --category`: the category of a subject's units whose id or name is
// $category (case-insensitive).
MATCH (s:Subject {space: $space, id: $subject})-[:SUBJECT_OF]->(u:MemoryUnit)
MATCH (c:Category)-[:CATEGORY_OF]->(u)
WHERE c.space = $space AND (c.id = $category OR toLower(c.name) = toLower($category))
RETURN c.id AS id, c.name AS name, count(u) AS size
ORDER BY size DESC, id
LIMIT 1
