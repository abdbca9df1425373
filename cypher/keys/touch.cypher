MATCH (k:GraphMemKey {hash: $hash})
SET k.last_used_at = $now
RETURN k.id AS id
