CREATE INDEX FOR (n:Space) ON (n.space, n.id)
