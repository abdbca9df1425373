UNWIND $rows AS row
MATCH (t:Task {space: $space, id: row.id})
SET t.insights = row.insights, t.workflow = row.workflow, t.insight_source = row.source,
    t.has_expert = row.has_expert, t.trajectories = row.trajectories, t.updated_at = $now
RETURN count(t) AS written
