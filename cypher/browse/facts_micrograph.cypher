// Browser view, facts layer: a subject's MicroGraph (HiGram §3.2, eq. 3-4) — its MemoryUnits
// of every status with their Category and Context — in one category ($category) or all of
// them (null), the dependency chains through each unit up to h = 3 hops (the evidence paths
// of §3.2 are walked along SUPPORTS), and the version chains (SUPERSEDES, CONTESTS).
MATCH (s:Subject {space: $space, id: $subject})-[so:SUBJECT_OF]->(u:MemoryUnit)
MATCH (c:Category)-[co:CATEGORY_OF]->(u)
WHERE c.space = $space AND ($category IS NULL OR c.id = $category)
OPTIONAL MATCH (x:Context)-[xo:CONTEXT_OF]->(u)
WITH s, so, u, c, co, x, xo
LIMIT $limit
OPTIONAL MATCH evidence = (u)-[:SUPPORTS*1..3]-(:MemoryUnit)
WITH s, so, u, c, co, x, xo, collect(evidence)[..$limit] AS evidence_paths
OPTIONAL MATCH version = (u)-[:SUPERSEDES|CONTESTS]-(:MemoryUnit)
RETURN s AS subject, so, u AS unit, c AS category, co, x AS context, xo, evidence_paths,
       collect(version)[..$limit] AS versions
