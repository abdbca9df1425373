// Every stored run of these tasks, with its raw steps (graphs are rebuilt from them).
UNWIND $ids AS task_id
MATCH (r:Trajectory)-[:OF_TASK]->(t:Task {space: $space, id: task_id})
WHERE r.space = $space
RETURN t.id AS task_id, r.id AS id, r.source_id AS source_id, r.kind AS kind, r.task AS task,
       r.reward AS reward, r.initial_observation AS initial_observation,
       r.steps_json AS steps_json
ORDER BY task_id, id
