// `graphmem browse`: the trajectory a decision-graph view shows — the one whose id or source
// id is $trajectory (an expert run before an exploration of the same source id), else one
// that was matched with another run, the longest first.
MATCH (r:Trajectory {space: $space})
WHERE $trajectory IS NULL OR r.id = $trajectory OR r.source_id = $trajectory
OPTIONAL MATCH (r)-[m:MATCHED_TO]-(:Trajectory)
WITH r, count(m) AS matched
RETURN r.id AS id, r.source_id AS name, coalesce(r.n_steps, 0) AS size
ORDER BY matched DESC, r.kind, size DESC, id
LIMIT 1
