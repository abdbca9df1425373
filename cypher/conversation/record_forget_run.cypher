MERGE (r:ForgetRun {space: $space, id: $run_id})
SET r.at_turn = $at_turn, r.created_at = $now, r.nodes_removed = $nodes_removed,
    r.edges_removed = $edges_removed, r.bytes_removed = $bytes_removed,
    r.threshold = $threshold, r.archived = $archived
RETURN r.id AS id
