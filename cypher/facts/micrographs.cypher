// Candidate MicroGraphs (§3.2, eq. 3-6) under the anchored subjects: one row per (subject,
// category) pair with its active units and their relations, and how many units (any status)
// were walked to find them.
UNWIND $subjects AS subject_id
MATCH (s:Subject {space: $space, id: subject_id})-[:SUBJECT_OF]->(u:MemoryUnit)
MATCH (c:Category)-[:CATEGORY_OF]->(u)
WHERE c.space = $space
WITH s, c, count(u) AS scanned,
     collect(CASE WHEN u.status = 'active' THEN u.relation_key ELSE null END) AS relations
RETURN s.id AS subject, c.id AS category, size(relations) AS active, relations, scanned
