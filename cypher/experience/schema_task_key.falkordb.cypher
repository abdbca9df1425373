CREATE INDEX FOR (n:Task) ON (n.space, n.id)
