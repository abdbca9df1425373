CREATE INDEX FOR (n:Turn) ON (n.space, n.id)
