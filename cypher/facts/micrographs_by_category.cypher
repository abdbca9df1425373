// Candidate MicroGraphs (§3.2, eq. 6) reached from category anchors alone, used only when no
// subject is anchored; at most $limit of them.
UNWIND $categories AS category_id
MATCH (c:Category {space: $space, id: category_id})-[:CATEGORY_OF]->(u:MemoryUnit)
WHERE u.status = 'active'
MATCH (s:Subject)-[:SUBJECT_OF]->(u)
WHERE s.space = $space
WITH s, c, collect(u.relation_key) AS relations
RETURN s.id AS subject, c.id AS category, size(relations) AS active, relations,
       size(relations) AS scanned
ORDER BY active DESC, subject, category
LIMIT $limit
