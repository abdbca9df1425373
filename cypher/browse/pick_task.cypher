// `graphmem browse`: the task a view shows — the one whose id or text is $task, else the one
// with the most cross-task edges, then runs.
MATCH (t:Task {space: $space})
WHERE $task IS NULL OR t.id = $task OR toLower(t.text) = toLower($task)
OPTIONAL MATCH (t)-[s:SIMILAR_TASK]-(:Task)
WITH t, count(s) AS links
RETURN t.id AS id, t.text AS name, coalesce(t.trajectories, 0) AS size
ORDER BY links DESC, size DESC, id
LIMIT 1
