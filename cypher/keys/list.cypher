MATCH (k:GraphMemKey)
RETURN k.id AS id, k.spaces AS spaces, k.read_only AS read_only, k.name AS name,
       k.created_at AS created_at, k.last_used_at AS last_used_at, k.revoked_at AS revoked_at
ORDER BY k.created_at, k.id
