// ... and its links to a task and to the trajectories it was compared with.
UNWIND $ids AS trajectory_id
MATCH (r:Trajectory {space: $space, id: trajectory_id})-[l]-(other)
WHERE other.space = $space AND type(l) IN ['OF_TASK', 'MATCHED_TO']
DELETE l
RETURN count(*) AS unlinked
