CREATE INDEX FOR (n:Entity) ON (n.space, n.id)
