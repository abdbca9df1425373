// A migrated unit whose source relationship was closed (or reopened) since the last run.
UNWIND $rows AS row
MATCH (u:MemoryUnit {space: $space, id: row.id})
SET u.status = row.status, u.valid_to = row.valid_to, u.status_changed_at = $now
RETURN count(u) AS written
