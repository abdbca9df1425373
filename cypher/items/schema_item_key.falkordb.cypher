CREATE INDEX FOR (n:StoreItem) ON (n.space, n.id)
