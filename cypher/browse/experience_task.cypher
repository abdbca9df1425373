// Browser view, experience layer: a task node with its runs (OF_TASK) and its cross-task
// edges (SIMILAR_TASK, §4.2.2: the workflow insight two similar tasks share).
MATCH (t:Task {space: $space, id: $task})
OPTIONAL MATCH run = (:Trajectory)-[:OF_TASK]->(t)
WITH t, collect(run)[..$limit] AS runs
OPTIONAL MATCH similar = (t)-[:SIMILAR_TASK]-(:Task)
WITH t, runs, similar
LIMIT $limit
RETURN t AS task, runs, collect(similar) AS similar
