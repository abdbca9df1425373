UNWIND $ids AS trajectory_id
MATCH (r:Trajectory {space: $space, id: trajectory_id})
RETURN r.id AS id, r.source_id AS source_id, r.kind AS kind, r.task AS task,
       r.reward AS reward, r.initial_observation AS initial_observation,
       r.steps_json AS steps_json
