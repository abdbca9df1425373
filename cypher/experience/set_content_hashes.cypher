// The last write of an add: these runs, their graphs and the insights they feed are complete.
UNWIND $rows AS row
MATCH (r:Trajectory {space: $space, id: row.id})
SET r.content_hash = row.content_hash
RETURN count(r) AS written
