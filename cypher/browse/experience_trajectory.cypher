// Browser view, experience layer: a trajectory's action decision graph (Experience Memory
// Graph §4.1.2) — its Action nodes from INIT and the NEXT_ACTION edges, each carrying the
// observation the head action was taken after — with its Task and the run it was matched
// with (MATCHED_TO: exploration → expert).
MATCH (r:Trajectory {space: $space, id: $trajectory})-[h:HAS_ACTION]->(a:Action)
WITH r, h, a
ORDER BY a.label
LIMIT $limit
WITH r, collect(h) AS has_action, collect(a) AS actions
OPTIONAL MATCH task = (r)-[:OF_TASK]->(:Task)
WITH r, has_action, actions, collect(task) AS tasks
OPTIONAL MATCH matched = (r)-[:MATCHED_TO]-(:Trajectory)
WITH r, has_action, actions, tasks, collect(matched) AS matches
UNWIND actions AS a
OPTIONAL MATCH (a)-[n:NEXT_ACTION]->(b:Action)
WHERE b IN actions
RETURN r AS trajectory, tasks, matches, actions, has_action, collect(n) AS decisions
