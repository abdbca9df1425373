MATCH (f:Forgotten {space: $space})
WHERE $run_id IS NULL OR f.run_id = $run_id
RETURN f.id AS id, f.run_id AS run_id, f.label AS label, f.node_id AS node_id,
       f.payload_json AS payload_json
ORDER BY f.label DESC, f.id
