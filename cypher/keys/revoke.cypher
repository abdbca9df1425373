MATCH (k:GraphMemKey {id: $id})
SET k.revoked_at = coalesce(k.revoked_at, $now)
RETURN k.id AS id, k.revoked_at AS revoked_at
