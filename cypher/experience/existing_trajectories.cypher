// Which of these trajectories are stored already, with which content and task.
UNWIND $ids AS trajectory_id
MATCH (r:Trajectory {space: $space, id: trajectory_id})
RETURN r.id AS id, r.content_hash AS content_hash, r.task_id AS task_id
