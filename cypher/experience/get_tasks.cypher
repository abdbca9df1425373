// Tasks by id, with what retrieval shows of them (their insights, workflow and runs).
UNWIND $ids AS task_id
MATCH (t:Task {space: $space, id: task_id})
RETURN t.id AS id, t.text AS text, t.names AS names, t.has_expert AS has_expert,
       t.insights AS insights, t.workflow AS workflow, t.trajectories AS trajectories
