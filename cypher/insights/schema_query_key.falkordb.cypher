CREATE INDEX FOR (n:Query) ON (n.space, n.id)
