// FalkorDB's (space, id) index already indexes `space`: this meets it ("already indexed").
CREATE INDEX FOR (n:StoreItem) ON (n.space)
