// The support subgraph G_S (§3.2, after eq. 7): the active units of the selected MicroGraphs,
// each with the status of every unit that supports it.
UNWIND $micrographs AS mg
MATCH (s:Subject {space: $space, id: mg.subject})-[:SUBJECT_OF]->(u:MemoryUnit)
MATCH (c:Category {space: $space, id: mg.category})-[:CATEGORY_OF]->(u)
WHERE u.status = 'active'
OPTIONAL MATCH (sup:MemoryUnit)-[:SUPPORTS]->(u)
WITH u, collect(CASE WHEN sup IS NULL THEN null
                     ELSE {id: sup.id, status: sup.status, valid_to: sup.valid_to} END) AS supporters
RETURN u {.*} AS unit, supporters
