// `graphmem browse`: the insight an edit-trail view shows — the one named by $insight, else
// a revised one with the most edits.
MATCH (i:Insight {space: $space})
WHERE $insight IS NULL OR i.id = $insight
OPTIONAL MATCH (i)-[r:REVISED_FROM]-(:Insight)
WITH i, count(r) AS revisions
OPTIONAL MATCH (e:InsightEdit)-[:EDIT_OF]->(i)
WITH i, revisions, count(e) AS size
RETURN i.id AS id, i.text AS name, size
ORDER BY revisions DESC, size DESC, id
LIMIT 1
