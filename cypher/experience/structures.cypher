// The texts of a space's tasks with their expert runs' steps, from the $skip-th on: what the
// space's goal model (task_model.py) learns from, each run's structure read from its actions.
MATCH (r:Trajectory)-[:OF_TASK]->(t:Task)
WHERE r.space = $space AND t.space = $space AND r.kind = 'expert'
RETURN t.text AS text, r.steps_json AS steps_json
ORDER BY r.created_at, r.id
SKIP $skip
