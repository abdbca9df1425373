// An API key of `graphmem serve`: only the sha256 of the secret is stored.
MERGE (k:GraphMemKey {hash: $hash})
ON CREATE SET k.id = $id, k.spaces = $spaces, k.read_only = $read_only,
              k.created_at = $now, k.name = $name
RETURN k.id AS id
