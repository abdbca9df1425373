// Browser view, insights layer: an insight's edit trail — every version along its revision
// chain (REVISED_FROM, EvoGraph-Mem eq. 14-15), the latest $limit InsightEdit records of each
// version (EDIT_OF: ADD, KEEP, PENALIZE, REVISE, ARCHIVE, ...) and up to $limit queries that
// are evidence for or against it (POSITIVE / NEGATIVE, eq. 6).
MATCH (i:Insight {space: $space, id: $insight})
OPTIONAL MATCH (i)-[:REVISED_FROM*1..20]-(other:Insight)
WITH i, collect(DISTINCT other) AS others
UNWIND [i] + [o IN others WHERE o <> i] AS version
OPTIONAL MATCH revised = (version)-[:REVISED_FROM]->(:Insight)
WITH version, collect(revised) AS revisions
OPTIONAL MATCH edit = (e:InsightEdit)-[:EDIT_OF]->(version)
WITH version, revisions, edit, e
ORDER BY e.at DESC, e.id
WITH version, revisions, collect(edit)[..$limit] AS edits
OPTIONAL MATCH evidence = (version)-[:POSITIVE|NEGATIVE]->(:Query)
RETURN version, revisions, edits, collect(evidence)[..$limit] AS evidence
