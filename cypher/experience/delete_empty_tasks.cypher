// A task whose every run moved to another task (its text changed) goes.
UNWIND $ids AS task_id
MATCH (t:Task {space: $space, id: task_id})
OPTIONAL MATCH (r:Trajectory)-[o:OF_TASK]->(t)
WITH t, count(o) AS runs
WHERE runs = 0
DETACH DELETE t
RETURN count(*) AS deleted
