// The controller's decisions are stored before any is applied, and the first stored plan
// wins: a re-run after a crash applies the same edits.
MATCH (q:Query {space: $space, id: $id})
SET q.plan_json = coalesce(q.plan_json, $plan_json), q.plan_at = coalesce(q.plan_at, $now)
RETURN q.plan_json AS plan_json
