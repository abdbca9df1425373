// Written before the delete: a crash in between leaves a node both stored and archived, and
// the next run archives it again under the same id.
UNWIND $rows AS row
MERGE (f:Forgotten {space: $space, id: row.id})
SET f.run_id = $run_id, f.label = row.label, f.node_id = row.node_id, f.summary = row.summary,
    f.importance = row.importance, f.payload_json = row.payload_json, f.forgotten_at = $now
RETURN count(f) AS written
