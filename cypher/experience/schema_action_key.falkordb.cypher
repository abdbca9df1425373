CREATE INDEX FOR (n:Action) ON (n.space, n.id)
