CREATE INDEX FOR (n:Subject) ON (n.space, n.id)
